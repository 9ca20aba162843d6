/**
 * The I/O of a tool call's steps, as plain functions over a registry and (when the call runs in a
 * sandbox) a workspace. What a call does with them, and in which order, is said once in
 * `call-flow.ts`; the machine and the fast path both run these through it.
 */
import type { Authorization, CommitReport, RollbackReport, ToolCallInput } from './tool-call-io.js';
import { CALL_SIGNAL, KEEPS_OWN_DEADLINE, VALIDATED_AGAINST, type InvokeOptions, type ToolResult } from '../registry/tool-descriptor.js';
import type { CallSignal } from '../registry/call-signal.js';
import { withDeadline } from '../timing/deadline.js';
import type { JsonSchema } from '../registry/json-schema-validators.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import type { SandboxWorkspace } from '../sandbox/sandbox-workspace.js';

export type Authorizer = (call: ToolCallInput) => Authorization | Promise<Authorization>;

export interface ToolCallEnvironment {
  readonly registry: ToolRegistry;
  readonly workspace?: SandboxWorkspace | undefined;
  readonly authorize?: Authorizer | undefined;
}

export interface ToolCallSteps {
  authorize(input: ToolCallInput): Authorization | Promise<Authorization>;
  /** Resolves with the release function once the sandbox lock is held. */
  acquireLock(mode: 'read' | 'write', signal?: AbortSignal): Promise<() => void>;
  rewriteArgs(input: ToolCallInput, args: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>>;
  checkpoint(input: ToolCallInput): Promise<string>;
  /** `signal` aborts the tool (its `AbortSignal` is made only if the handler reads it). */
  invoke(input: ToolCallInput, args: Readonly<Record<string, unknown>>, signal: CallSignal): Promise<ToolResult>;
  rewriteResult(input: ToolCallInput, result: ToolResult): Promise<ToolResult>;
  /** Whether the tool's handler enforces `input.timeoutMs` itself (then the call arms no timer for it). */
  keepsOwnDeadline?(input: ToolCallInput): boolean;
  commit(input: ToolCallInput, checkpointId: string | undefined): Promise<CommitReport>;
  rollback(input: ToolCallInput, checkpointId: string | undefined): Promise<RollbackReport>;
}

const allowAll: Authorization = { allowed: true };
const noRelease = (): void => undefined;

/**
 * How long a rollback waits for a timed-out or cancelled tool to stop before restoring the
 * sandbox: MCP cancellation is advisory, and a tool still writing would write over the restore.
 */
export const ROLLBACK_GRACE_MS = 2_000;

export function toolCallSteps(environment: ToolCallEnvironment): ToolCallSteps {
  const { registry, workspace } = environment;
  const authorize = environment.authorize;
  const invocations = new Map<string, Promise<unknown>>();
  return {
    authorize: (input) => (authorize ? authorize(input) : allowAll),
    acquireLock: (mode, signal) => (workspace ? workspace.lock.acquire(mode, signal) : Promise.resolve(noRelease)),
    // The rewriter's deep copy is the one copy a sandboxed call makes (it never mutates `args`).
    // Promise executors: what the rewriter throws (a path out of the sandbox) is the rejection.
    rewriteArgs: (input, args) =>
      new Promise((resolve) => resolve(workspace ? workspace.rewriter.rewriteArgs(args, input.tool.inputSchema) : args)),
    checkpoint: async (input) => (workspace ? workspace.checkpoint(`before ${input.tool.name} (${input.callId})`, input.tool.name) : ''),
    invoke: (input, args, signal) => {
      // What the sandbox's watcher reports from here on may be this read-only call's doing.
      if (workspace && input.tool.capabilities.readOnly) workspace.beginRead(input.callId);
      const options = new CallInvokeOptions(input, signal);
      const running = registry.handlerOf(input.tool.name)(args, options);
      if (workspace && !input.tool.capabilities.readOnly) {
        invocations.set(input.callId, running);
        void running.then(
          () => invocations.delete(input.callId),
          () => invocations.delete(input.callId),
        );
      }
      return running;
    },
    keepsOwnDeadline: (input) => {
      try {
        return (registry.handlerOf(input.tool.name) as { [KEEPS_OWN_DEADLINE]?: true })[KEEPS_OWN_DEADLINE] === true;
      } catch {
        return false; // no handler: the invoke step has already failed
      }
    },
    rewriteResult: (_input, result) => new Promise((resolve) => resolve(workspace ? workspace.rewriter.rewriteResult(result) : result)),
    commit: async (input, checkpointId) => {
      if (!workspace) return { ok: true, changes: [] };
      return input.tool.capabilities.readOnly
        ? workspace.verifyReadOnly(input.tool.name, input.callId)
        : workspace.commitWrite(checkpointId, input.tool.name);
    },
    rollback: async (input, checkpointId) => {
      if (!workspace) return { restored: false, violation: undefined };
      const running = invocations.get(input.callId);
      if (running) {
        const settled = await withDeadline(
          running.then(
            () => true,
            () => true,
          ),
          { ms: ROLLBACK_GRACE_MS, onTimeout: () => false },
        );
        // Still running after the grace: restore anyway, and let the next check look again.
        if (!settled) workspace.markDirty();
      }
      return workspace.rollback(checkpointId, input.callId);
    },
  };
}

/**
 * A handler's options for one call, as a class (one shape, the getter on the prototype): made for
 * every call, an object literal with symbol keys and a getter costs several times as much.
 */
class CallInvokeOptions implements InvokeOptions {
  // The call validated these very arguments against this very schema: once is enough.
  readonly [VALIDATED_AGAINST]: JsonSchema;
  readonly [CALL_SIGNAL]: CallSignal;
  readonly timeoutMs: number;
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  readonly context: InvokeOptions['context'];

  constructor(input: ToolCallInput, signal: CallSignal) {
    this[VALIDATED_AGAINST] = input.tool.inputSchema;
    this[CALL_SIGNAL] = signal;
    this.timeoutMs = input.timeoutMs;
    this.meta = input.meta;
    this.context = input.context;
  }

  /** Made on first read: an in-process tool that never looks at ctx.signal costs no AbortController. */
  get signal(): AbortSignal {
    return this[CALL_SIGNAL].signal;
  }
}
