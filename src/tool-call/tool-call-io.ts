/**
 * The seam between the pure tool-call machine and the I/O it runs on: what a call is, what its
 * outcome is, and the inputs and outputs of the actors the runtime provides.
 */
import type { InvokeOptions, ToolDescriptor, ToolResult } from '../registry/tool-descriptor.js';
import type { ErrorCode } from '../errors/codes.js';
import type { McpActorsError } from '../errors/mcp-actors-error.js';
import type { FileChange } from '../sandbox/change-reports.js';

export type { CommitReport, FileChange, RollbackReport } from '../sandbox/change-reports.js';

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
  { readonly allowed: true } | { readonly allowed: false; readonly rule: string; readonly reason: string; readonly code?: ErrorCode };
