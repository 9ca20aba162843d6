/**
 * The seam between the pure tool-call machine and the I/O it runs on: what a call is, what its
 * outcome is, and the inputs and outputs of the actors the runtime provides.
 */
import type { InvokeOptions, ToolDescriptor, ToolResult } from '../registry/tool-descriptor.js';
import type { ErrorCode } from '../errors/codes.js';
import type { McpActorsError } from '../errors/mcp-actors-error.js';

/** A file a call added, modified or deleted, with content hashes before and after. */
export interface FileChange {
  readonly path: string;
  readonly kind: 'added' | 'modified' | 'deleted';
  /** What the path is (after the call; before it, for a deletion), where the sandbox says. */
  readonly type?: 'file' | 'symlink' | 'directory';
  readonly before?: string | undefined;
  readonly after?: string | undefined;
  readonly modeBefore?: number | undefined;
  readonly modeAfter?: number | undefined;
}

export type CallStatus = 'committed' | 'rolled-back' | 'failed' | 'rejected';

/** How a tool call ended — exactly once. */
export interface CallOutcome {
  readonly callId: string;
  readonly tool: string;
  readonly status: CallStatus;
  readonly result: ToolResult | undefined;
  readonly changes: readonly FileChange[];
  readonly checkpointId: string | undefined;
  readonly error: McpActorsError | undefined;
  /** Said when a rollback restored the sandbox but the tool may have had effects outside it. */
  readonly note?: string | undefined;
  readonly durationMs: number;
}

export interface ToolCallInput {
  readonly callId: string;
  readonly tool: ToolDescriptor;
  readonly args: Readonly<Record<string, unknown>>;
  readonly timeoutMs: number;
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
  /** Whose call it is (actor and tenant), handed to the tool for questions its server asks back. */
  readonly context?: InvokeOptions['context'];
  /** Whether the call runs in a sandbox (checkpoints, path rewriting, change tracking). */
  readonly sandboxed: boolean;
  readonly startedAt: number;
  /**
   * The permission policy's answer, when it needs nobody asked (see `policyDecision`): then
   * authorizing is a decision, not I/O. Absent: the authorizing step asks `steps.authorize`.
   */
  readonly authorization?: Authorization | undefined;
}

export type Authorization =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly rule: string; readonly reason: string; readonly code?: ErrorCode };

/** What committing found: the call's changes, or a read-only tool that changed the sandbox. */
export type CommitReport =
  | { readonly ok: true; readonly changes: readonly FileChange[] }
  | { readonly ok: false; readonly violation: McpActorsError; readonly changes: readonly FileChange[] };

/**
 * What rolling back did: `restored` when the sandbox was put back (to the call's checkpoint, or —
 * for a read-only tool that changed it — to the state after the last committed write).
 */
export interface RollbackReport {
  readonly restored: boolean;
  readonly violation: McpActorsError | undefined;
}
