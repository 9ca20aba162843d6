/**
 * The steps of a tool call as plain async functions. The tool-call machine invokes them as actors;
 * the fast path (`fast-tool-call.ts`) calls the very same functions in the same order, so the two
 * cannot drift apart in what a step does — and a differential test checks they agree on the flow.
 */
import type { Authorization, CommitReport, RollbackReport, ToolCallInput } from './tool-call-io.js';
import { VALIDATED_AGAINST, type ToolResult } from '../registry/tool-descriptor.js';
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
  /** `signal` aborts the tool; the handler also enforces `input.timeoutMs` itself. */
  invoke(input: ToolCallInput, args: Readonly<Record<string, unknown>>, signal: AbortSignal | undefined): Promise<ToolResult>;
  rewriteResult(input: ToolCallInput, result: ToolResult): Promise<ToolResult>;
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
    rewriteArgs: async (input, args) => (workspace ? workspace.rewriter.rewriteArgs({ ...args }, input.tool.inputSchema) : { ...args }),
    checkpoint: async (input) => (workspace ? workspace.checkpoint(`before ${input.tool.name} (${input.callId})`, input.tool.name) : ''),
    invoke: (input, args, signal) => {
      // What the sandbox's watcher reports from here on may be this read-only call's doing.
      if (workspace && input.tool.capabilities.readOnly) workspace.beginRead(input.callId);
      const running = registry.handlerOf(input.tool.name)(args as Record<string, unknown>, {
        // The validating step checked these arguments against this very schema: once is enough.
        [VALIDATED_AGAINST]: input.tool.inputSchema,
        timeoutMs: input.timeoutMs,
        ...(signal ? { signal } : {}),
        ...(input.meta ? { meta: input.meta } : {}),
      });
      if (workspace && !input.tool.capabilities.readOnly) {
        invocations.set(input.callId, running);
        void running.then(
          () => invocations.delete(input.callId),
          () => invocations.delete(input.callId),
        );
      }
      return running;
    },
    rewriteResult: async (_input, result) => (workspace ? workspace.rewriter.rewriteResult(result) : result),
    commit: async (input, checkpointId) => {
      if (!workspace) return { ok: true, changes: [] };
      return input.tool.capabilities.readOnly ? workspace.verifyReadOnly(input.tool.name, input.callId) : workspace.commitWrite(checkpointId, input.tool.name);
    },
    rollback: async (input, checkpointId) => {
      if (!workspace) return { restored: false, violation: undefined };
      const running = invocations.get(input.callId);
      if (running) {
        const settled = await Promise.race([running.then(() => true, () => true), delay(ROLLBACK_GRACE_MS).then(() => false)]);
        // Still running after the grace: restore anyway, and let the next check look again.
        if (!settled) workspace.markDirty();
      }
      return workspace.rollback(checkpointId, input.callId);
    },
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}
