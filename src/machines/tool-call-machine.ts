/**
 * Every tool call as a statechart:
 *
 *   validating → authorizing → locked(acquiring → rewritingPaths → checkpointing → invoking
 *                                     → rewritingResult → committing | rollingBack) → done
 *
 * Read-only tools skip the checkpoint. A failure, timeout, cancel or output-validation error after
 * the checkpoint rolls the sandbox back. Every call ends exactly once, with an outcome whose status
 * is committed, rolled-back, failed or rejected. Pure: the I/O comes in through `setup({ actors })`.
 */
import { assign, fromCallback, fromPromise, setup } from 'xstate';
import { ErrorCode } from '../errors/codes.js';
import type { McpActorsError } from '../errors/mcp-actors-error.js';
import type { ToolResult } from '../registry/tool-descriptor.js';
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
  waitedTooLongError,
} from '../tool-call/tool-call-errors.js';
import type { Authorization, CallOutcome, CallStatus, CommitReport, FileChange, RollbackReport, ToolCallInput } from '../tool-call/tool-call-io.js';

export interface ToolCallContext {
  readonly input: ToolCallInput;
  readonly args: Readonly<Record<string, unknown>>;
  readonly checkpointId: string | undefined;
  readonly result: ToolResult | undefined;
  readonly changes: readonly FileChange[];
  readonly error: McpActorsError | undefined;
  readonly status: CallStatus | undefined;
  readonly note: string | undefined;
}

export type ToolCallEvent =
  | { readonly type: 'call.cancel'; readonly reason?: string }
  | { readonly type: 'lock.acquired' }
  | { readonly type: 'lock.failed'; readonly error: unknown };

const mayWrite = (input: ToolCallInput): boolean => !input.tool.capabilities.readOnly;

function notProvided(name: string): never {
  throw new Error(`the tool-call machine's "${name}" actor was not provided; use toolCallMachine.provide({ actors })`);
}


export const toolCallMachine = setup({
  types: {
    context: {} as ToolCallContext,
    events: {} as ToolCallEvent,
    input: {} as ToolCallInput,
    output: {} as CallOutcome,
  },
  actors: {
    authorizeCall: fromPromise<Authorization, ToolCallInput>(async () => notProvided('authorizeCall')),
    holdLock: fromCallback<ToolCallEvent, { mode: 'read' | 'write' }>(() => notProvided('holdLock')),
    rewriteArgs: fromPromise<Record<string, unknown>, { input: ToolCallInput; args: Readonly<Record<string, unknown>> }>(async () =>
      notProvided('rewriteArgs'),
    ),
    takeCheckpoint: fromPromise<string, { input: ToolCallInput }>(async () => notProvided('takeCheckpoint')),
    invokeTool: fromPromise<ToolResult, { input: ToolCallInput; args: Readonly<Record<string, unknown>> }>(async () =>
      notProvided('invokeTool'),
    ),
    rewriteResult: fromPromise<ToolResult, { input: ToolCallInput; result: ToolResult }>(async () => notProvided('rewriteResult')),
    commitCall: fromPromise<CommitReport, { input: ToolCallInput; checkpointId: string | undefined }>(async () =>
      notProvided('commitCall'),
    ),
    rollbackCall: fromPromise<RollbackReport, { input: ToolCallInput; checkpointId: string | undefined }>(async () =>
      notProvided('rollbackCall'),
    ),
  },
  guards: {
    argsAreValid: ({ context }) => argsAreValid(context.input, context.args),
    isAllowed: ({ event }) => (event as unknown as { output: Authorization }).output.allowed,
    isSandboxed: ({ context }) => context.input.sandboxed,
    mayWrite: ({ context }) => mayWrite(context.input),
    resultSucceeded: ({ event }) => (event as unknown as { output: ToolResult }).output.success,
    commitOk: ({ event }) => (event as unknown as { output: CommitReport }).output.ok,
    notSandboxed: ({ context }) => !context.input.sandboxed,
    sandboxRestored: ({ event }) => (event as unknown as { output: RollbackReport }).output.restored,
  },
  actions: {
    rejectInvalidArgs: assign(({ context }) => ({ status: 'rejected' as const, error: invalidArgsError(context.input, context.args) })),
    rejectUnauthorized: assign(({ event, context }) => ({
      status: 'rejected' as const,
      error: deniedError(context.input, (event as unknown as { output: Authorization & { allowed: false } }).output),
    })),
    rejectUnauthorizable: assign(({ event, context }) => ({
      status: 'rejected' as const,
      error: authorizeFailedError(context.input, (event as unknown as { error: unknown }).error),
    })),
    rejectWith: assign(({ event }) => ({
      status: 'rejected' as const,
      error: asCallError((event as unknown as { error: unknown }).error, ErrorCode.SANDBOX_PATH, 'the call could not be prepared'),
    })),
    failWith: assign(({ event }) => ({
      status: 'failed' as const,
      error: asCallError((event as unknown as { error: unknown }).error, ErrorCode.CHECKPOINT_FAILED, 'the call failed'),
    })),
    rememberArgs: assign({ args: ({ event }) => (event as unknown as { output: Record<string, unknown> }).output }),
    rememberCheckpoint: assign({ checkpointId: ({ event }) => (event as unknown as { output: string }).output }),
    rememberResult: assign({ result: ({ event }) => (event as unknown as { output: ToolResult }).output }),
    recordToolFailure: assign(({ event, context }) => {
      const result = (event as unknown as { output: ToolResult }).output;
      return { result, error: toolFailedError(context.input, result) };
    }),
    recordInvokeError: assign(({ event, context }) => ({ error: threwError(context.input, (event as unknown as { error: unknown }).error) })),
    recordTimeout: assign(({ context }) => ({ error: timeoutError(context.input) })),
    failWaitingForApproval: assign(({ context }) => ({ status: 'failed' as const, error: waitedTooLongError(context.input, 'approval') })),
    failWaitingForLock: assign(({ context }) => ({ status: 'failed' as const, error: waitedTooLongError(context.input, 'the sandbox lock') })),
    recordCancel: assign(({ event, context }) => ({
      error: cancelledError(context.input, event.type === 'call.cancel' ? event.reason : undefined),
    })),
    recordCommit: assign(({ event }) => ({ changes: (event as unknown as { output: CommitReport }).output.changes })),
    recordViolation: assign(({ event }) => {
      const report = (event as unknown as { output: CommitReport & { ok: false } }).output;
      return { error: report.violation, changes: report.changes };
    }),
    markCommitted: assign({ status: 'committed' as const, error: undefined }),
    markFailed: assign({ status: 'failed' as const }),
    markRolledBack: assign(({ context, event }) => ({
      status: 'rolled-back' as const,
      error: (event as unknown as { output: RollbackReport }).output.violation ?? context.error,
      note: rolledBackNote(context.input),
    })),
    markRollbackFailed: assign(({ event, context }) => ({
      status: 'failed' as const,
      error: rollbackFailedError(context.input, (event as unknown as { error: unknown }).error, context.error),
    })),
  },
  delays: {
    callTimeout: ({ context }) => context.input.timeoutMs,
  },
}).createMachine({
  id: 'toolCall',
  context: ({ input }) => ({
    input,
    args: input.args,
    checkpointId: undefined,
    result: undefined,
    changes: [],
    error: undefined,
    status: undefined,
    note: undefined,
  }),
  initial: 'validating',
  states: {
    validating: {
      always: [{ guard: 'argsAreValid', target: 'authorizing' }, { target: 'done', actions: 'rejectInvalidArgs' }],
    },
    authorizing: {
      invoke: {
        src: 'authorizeCall',
        input: ({ context }) => context.input,
        onDone: [{ guard: 'isAllowed', target: 'locked' }, { target: 'done', actions: 'rejectUnauthorized' }],
        onError: { target: 'done', actions: 'rejectUnauthorizable' },
      },
      on: { 'call.cancel': { target: 'done', actions: ['recordCancel', 'markFailed'] } },
      after: { callTimeout: { target: 'done', actions: 'failWaitingForApproval' } },
    },
    locked: {
      initial: 'acquiring',
      invoke: { src: 'holdLock', input: ({ context }) => ({ mode: mayWrite(context.input) ? 'write' : 'read' }) },
      states: {
        acquiring: {
          on: {
            'lock.acquired': [{ guard: 'isSandboxed', target: 'rewritingPaths' }, { target: 'invoking' }],
            'lock.failed': { target: '#toolCall.done', actions: 'failWith' },
            'call.cancel': { target: '#toolCall.done', actions: ['recordCancel', 'markFailed'] },
          },
          after: { callTimeout: { target: '#toolCall.done', actions: 'failWaitingForLock' } },
        },
        rewritingPaths: {
          invoke: {
            src: 'rewriteArgs',
            input: ({ context }) => ({ input: context.input, args: context.args }),
            onDone: [{ guard: 'mayWrite', target: 'checkpointing', actions: 'rememberArgs' }, { target: 'invoking', actions: 'rememberArgs' }],
            onError: { target: '#toolCall.done', actions: 'rejectWith' },
          },
        },
        checkpointing: {
          invoke: {
            src: 'takeCheckpoint',
            input: ({ context }) => ({ input: context.input }),
            onDone: { target: 'invoking', actions: 'rememberCheckpoint' },
            onError: { target: '#toolCall.done', actions: 'failWith' },
          },
        },
        invoking: {
          invoke: {
            src: 'invokeTool',
            input: ({ context }) => ({ input: context.input, args: context.args }),
            onDone: [
              { guard: 'resultSucceeded', target: 'rewritingResult', actions: 'rememberResult' },
              { target: 'rollingBack', actions: 'recordToolFailure' },
            ],
            onError: { target: 'rollingBack', actions: 'recordInvokeError' },
          },
          after: { callTimeout: { target: 'rollingBack', actions: 'recordTimeout' } },
          on: { 'call.cancel': { target: 'rollingBack', actions: 'recordCancel' } },
        },
        rewritingResult: {
          invoke: {
            src: 'rewriteResult',
            input: ({ context }) => ({ input: context.input, result: context.result! }),
            onDone: { target: 'committing', actions: 'rememberResult' },
            onError: { target: 'rollingBack', actions: 'recordInvokeError' },
          },
        },
        committing: {
          invoke: {
            src: 'commitCall',
            input: ({ context }) => ({ input: context.input, checkpointId: context.checkpointId }),
            onDone: [
              { guard: 'commitOk', target: '#toolCall.done', actions: ['recordCommit', 'markCommitted'] },
              { target: 'rollingBack', actions: 'recordViolation' },
            ],
            onError: { target: 'rollingBack', actions: 'recordInvokeError' },
          },
        },
        rollingBack: {
          always: { guard: 'notSandboxed', target: '#toolCall.done', actions: 'markFailed' },
          invoke: {
            src: 'rollbackCall',
            input: ({ context }) => ({ input: context.input, checkpointId: context.checkpointId }),
            onDone: [
              { guard: 'sandboxRestored', target: '#toolCall.done', actions: 'markRolledBack' },
              { target: '#toolCall.done', actions: 'markFailed' },
            ],
            onError: { target: '#toolCall.done', actions: 'markRollbackFailed' },
          },
        },
      },
    },
    done: {
      type: 'final',
    },
  },
  output: ({ context }) => ({
    callId: context.input.callId,
    tool: context.input.tool.name,
    status: context.status ?? 'failed',
    result: context.result,
    changes: context.changes,
    checkpointId: context.checkpointId,
    error: context.error,
    note: context.note,
    durationMs: Date.now() - context.input.startedAt,
  }),
});
