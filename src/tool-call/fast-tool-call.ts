/**
 * The fast path: the tool-call machine's steps for a call that needs no checkpoint (a read-only
 * tool), run as plain functions — no actor, no transitions — when nobody is inspecting. Creating
 * and running a machine actor costs tens of microseconds; an in-process read call should cost a
 * few. The flow mirrors `toolCallMachine` state by state, and `properties/fast-path.test.ts`
 * checks that both give the same outcome for every generated call.
 */
import { ErrorCode } from '../errors/codes.js';
import type { McpActorsError } from '../errors/mcp-actors-error.js';
import {
  argsAreValid,
  asCallError,
  authorizeFailedError,
  cancelledError,
  deniedError,
  invalidArgsError,
  rollbackFailedError,
  rolledBackNote,
  threwError,
  timeoutError,
  toolFailedError,
} from './tool-call-errors.js';
import type { Authorization, CallOutcome, CallStatus, FileChange, ToolCallInput } from './tool-call-io.js';
import type { ToolResult } from '../registry/tool-descriptor.js';
import type { ToolCallSteps } from './tool-call-steps.js';

/** Whether a call may take the fast path: no checkpoint needed and nobody inspecting. */
export function canTakeFastPath(input: ToolCallInput, inspected: boolean): boolean {
  return !inspected && input.tool.capabilities.readOnly;
}

const NO_CHANGES: readonly FileChange[] = Object.freeze([]);

export async function fastToolCall(steps: ToolCallSteps, input: ToolCallInput, signal?: AbortSignal): Promise<CallOutcome> {
  let args = input.args;
  let result: ToolResult | undefined;
  let changes: readonly FileChange[] = NO_CHANGES;
  let error: McpActorsError | undefined;
  let note: string | undefined;
  const end = (status: CallStatus): CallOutcome => ({
    callId: input.callId,
    tool: input.tool.name,
    status,
    result,
    changes,
    checkpointId: undefined,
    error,
    note,
    durationMs: Date.now() - input.startedAt,
  });

  // validating
  if (!argsAreValid(input, args)) {
    error = invalidArgsError(input, args);
    return end('rejected');
  }
  // A call cancelled before it started ends in `authorizing`, as the machine's does.
  if (signal?.aborted) {
    error = cancelledError(input, reasonOf(signal));
    return end('failed');
  }
  // authorizing
  let authorization: Authorization;
  try {
    const answer = steps.authorize(input);
    authorization = answer instanceof Promise ? await answer : answer;
  } catch (cause) {
    error = authorizeFailedError(input, cause);
    return end('rejected');
  }
  if (!authorization.allowed) {
    error = deniedError(input, authorization);
    return end('rejected');
  }
  if (signal?.aborted) {
    error = cancelledError(input, reasonOf(signal));
    return end('failed');
  }
  // locked: acquiring
  let release: () => void;
  try {
    release = await steps.acquireLock('read', signal);
  } catch (cause) {
    // Aborted while waiting for the lock: the machine's `call.cancel` in `acquiring`.
    error = signal?.aborted ? cancelledError(input, reasonOf(signal)) : asCallError(cause, ErrorCode.CHECKPOINT_FAILED, 'the call failed');
    return end('failed');
  }
  try {
    // rewritingPaths
    if (input.sandboxed) {
      try {
        args = await steps.rewriteArgs(input, args);
      } catch (cause) {
        error = asCallError(cause, ErrorCode.SANDBOX_PATH, 'the call could not be prepared');
        return end('rejected');
      }
    }
    // invoking (no checkpoint: the tool is read-only)
    const invoked = await invokeWithDeadline(steps, input, args, signal);
    if (invoked.kind === 'result' && invoked.result.success) {
      result = invoked.result;
      // rewritingResult
      try {
        result = await steps.rewriteResult(input, result);
        // committing
        const report = await steps.commit(input, undefined);
        if (report.ok) {
          changes = report.changes;
          error = undefined;
          return end('committed');
        }
        error = report.violation;
        changes = report.changes;
      } catch (cause) {
        error = threwError(input, cause);
      }
    } else if (invoked.kind === 'result') {
      result = invoked.result;
      error = toolFailedError(input, invoked.result);
    } else {
      error = invoked.error;
    }
    // rollingBack
    if (!input.sandboxed) return end('failed');
    try {
      const report = await steps.rollback(input, undefined);
      if (!report.restored) return end('failed');
      error = report.violation ?? error;
      note = rolledBackNote(input);
      return end('rolled-back');
    } catch (cause) {
      error = rollbackFailedError(input, cause, error);
      return end('failed');
    }
  } finally {
    release();
  }
}

type Invoked = { kind: 'result'; result: ToolResult } | { kind: 'error'; error: McpActorsError };

/**
 * The invoking state: the tool, raced against the call's timeout and the caller's cancel. No
 * AbortController of our own (one costs microseconds): the caller's signal reaches the tool, and
 * the handler enforces the same deadline itself, aborting the tool when it passes.
 */
function invokeWithDeadline(
  steps: ToolCallSteps,
  input: ToolCallInput,
  args: Readonly<Record<string, unknown>>,
  signal: AbortSignal | undefined,
): Promise<Invoked> {
  return new Promise<Invoked>((resolve) => {
    let settled = false;
    const finish = (invoked: Invoked): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCancel);
      resolve(invoked);
    };
    const onCancel = (): void => finish({ kind: 'error', error: cancelledError(input, reasonOf(signal)) });
    let timer: NodeJS.Timeout | undefined;
    if (signal?.aborted) return onCancel();
    let running: Promise<ToolResult>;
    try {
      running = steps.invoke(input, args, signal);
    } catch (cause) {
      return finish({ kind: 'error', error: threwError(input, cause) });
    }
    timer = setTimeout(() => finish({ kind: 'error', error: timeoutError(input) }), input.timeoutMs);
    signal?.addEventListener('abort', onCancel, { once: true });
    running.then(
      (result) => finish({ kind: 'result', result }),
      (cause: unknown) => finish({ kind: 'error', error: threwError(input, cause) }),
    );
  });
}

function reasonOf(signal: AbortSignal | undefined): string | undefined {
  return signal?.reason === undefined ? undefined : String(signal.reason instanceof Error ? signal.reason.message : signal.reason);
}
