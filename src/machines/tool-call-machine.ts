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
    isAllowed: (_, params: { authorization: Authorization }) => params.authorization.allowed,
    isSandboxed: ({ context }) => context.input.sandboxed,
    mayWrite: ({ context }) => mayWrite(context.input),
    resultSucceeded: (_, params: { result: ToolResult }) => params.result.success,
    commitOk: (_, params: { report: CommitReport }) => params.report.ok,
    notSandboxed: ({ context }) => !context.input.sandboxed,
    sandboxRestored: (_, params: { report: RollbackReport }) => params.report.restored,
  },
  actions: {
    rejectInvalidArgs: assign(({ context }) => ({ status: 'rejected' as const, error: invalidArgsError(context.input, context.args) })),
    rejectUnauthorized: assign(({ context }, params: { authorization: Authorization }) => ({
      status: 'rejected' as const,
      error: params.authorization.allowed
        ? authorizeFailedError(context.input, new Error('the permission check allowed the call and refused it'))
        : deniedError(context.input, params.authorization),
    })),
    rejectUnauthorizable: assign(({ context }, params: { error: unknown }) => ({
      status: 'rejected' as const,
      error: authorizeFailedError(context.input, params.error),
    })),
    rejectWith: assign((_, params: { error: unknown }) => ({
      status: 'rejected' as const,
      error: asCallError(params.error, ErrorCode.SANDBOX_PATH, 'the call could not be prepared'),
    })),
    failWith: assign((_, params: { error: unknown }) => ({
      status: 'failed' as const,
      error: asCallError(params.error, ErrorCode.CHECKPOINT_FAILED, 'the call failed'),
    })),
    rememberArgs: assign((_, params: { args: Readonly<Record<string, unknown>> }) => ({ args: params.args })),
    rememberCheckpoint: assign((_, params: { checkpointId: string }) => ({ checkpointId: params.checkpointId })),
    rememberResult: assign((_, params: { result: ToolResult }) => ({ result: params.result })),
    recordToolFailure: assign(({ context }, params: { result: ToolResult }) => ({
      result: params.result,
      error: toolFailedError(context.input, params.result),
    })),
    recordInvokeError: assign(({ context }, params: { error: unknown }) => ({ error: threwError(context.input, params.error) })),
    recordTimeout: assign(({ context }) => ({ error: timeoutError(context.input) })),
    failWaitingForApproval: assign(({ context }) => ({ status: 'failed' as const, error: waitedTooLongError(context.input, 'approval') })),
    failWaitingForLock: assign(({ context }) => ({ status: 'failed' as const, error: waitedTooLongError(context.input, 'the sandbox lock') })),
    recordCancel: assign(({ event, context }) => ({
      error: cancelledError(context.input, event.type === 'call.cancel' ? event.reason : undefined),
    })),
    recordCommit: assign((_, params: { report: CommitReport }) => ({ changes: params.report.changes })),
    recordViolation: assign((_, params: { report: CommitReport }) =>
      params.report.ok ? { changes: params.report.changes } : { error: params.report.violation, changes: params.report.changes },
    ),
    markCommitted: assign({ status: 'committed' as const, error: undefined }),
    markFailed: assign({ status: 'failed' as const }),
    markRolledBack: assign(({ context }, params: { report: RollbackReport }) => ({
      status: 'rolled-back' as const,
      error: params.report.violation ?? context.error,
      note: rolledBackNote(context.input),
    })),
    markRollbackFailed: assign(({ context }, params: { error: unknown }) => ({
      status: 'failed' as const,
      error: rollbackFailedError(context.input, params.error, context.error),
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
        onDone: [
          { guard: { type: 'isAllowed', params: ({ event }) => ({ authorization: event.output }) }, target: 'locked' },
          { target: 'done', actions: { type: 'rejectUnauthorized', params: ({ event }) => ({ authorization: event.output }) } },
        ],
        onError: { target: 'done', actions: { type: 'rejectUnauthorizable', params: ({ event }) => ({ error: event.error }) } },
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
            'lock.failed': { target: '#toolCall.done', actions: { type: 'failWith', params: ({ event }) => ({ error: event.error }) } },
            'call.cancel': { target: '#toolCall.done', actions: ['recordCancel', 'markFailed'] },
          },
          after: { callTimeout: { target: '#toolCall.done', actions: 'failWaitingForLock' } },
        },
        rewritingPaths: {
          invoke: {
            src: 'rewriteArgs',
            input: ({ context }) => ({ input: context.input, args: context.args }),
            onDone: [
              { guard: 'mayWrite', target: 'checkpointing', actions: { type: 'rememberArgs', params: ({ event }) => ({ args: event.output }) } },
              { target: 'invoking', actions: { type: 'rememberArgs', params: ({ event }) => ({ args: event.output }) } },
            ],
            onError: { target: '#toolCall.done', actions: { type: 'rejectWith', params: ({ event }) => ({ error: event.error }) } },
          },
        },
        checkpointing: {
          invoke: {
            src: 'takeCheckpoint',
            input: ({ context }) => ({ input: context.input }),
            onDone: { target: 'invoking', actions: { type: 'rememberCheckpoint', params: ({ event }) => ({ checkpointId: event.output }) } },
            onError: { target: '#toolCall.done', actions: { type: 'failWith', params: ({ event }) => ({ error: event.error }) } },
          },
        },
        invoking: {
          invoke: {
            src: 'invokeTool',
            input: ({ context }) => ({ input: context.input, args: context.args }),
            onDone: [
              {
                guard: { type: 'resultSucceeded', params: ({ event }) => ({ result: event.output }) },
                target: 'rewritingResult',
                actions: { type: 'rememberResult', params: ({ event }) => ({ result: event.output }) },
              },
              { target: 'rollingBack', actions: { type: 'recordToolFailure', params: ({ event }) => ({ result: event.output }) } },
            ],
            onError: { target: 'rollingBack', actions: { type: 'recordInvokeError', params: ({ event }) => ({ error: event.error }) } },
          },
          after: { callTimeout: { target: 'rollingBack', actions: 'recordTimeout' } },
          on: { 'call.cancel': { target: 'rollingBack', actions: 'recordCancel' } },
        },
        rewritingResult: {
          invoke: {
            src: 'rewriteResult',
            input: ({ context }) => ({ input: context.input, result: context.result! }),
            onDone: { target: 'committing', actions: { type: 'rememberResult', params: ({ event }) => ({ result: event.output }) } },
            onError: { target: 'rollingBack', actions: { type: 'recordInvokeError', params: ({ event }) => ({ error: event.error }) } },
          },
        },
        committing: {
          invoke: {
            src: 'commitCall',
            input: ({ context }) => ({ input: context.input, checkpointId: context.checkpointId }),
            onDone: [
              {
                guard: { type: 'commitOk', params: ({ event }) => ({ report: event.output }) },
                target: '#toolCall.done',
                actions: [{ type: 'recordCommit', params: ({ event }) => ({ report: event.output }) }, 'markCommitted'],
              },
              { target: 'rollingBack', actions: { type: 'recordViolation', params: ({ event }) => ({ report: event.output }) } },
            ],
            onError: { target: 'rollingBack', actions: { type: 'recordInvokeError', params: ({ event }) => ({ error: event.error }) } },
          },
        },
        rollingBack: {
          always: { guard: 'notSandboxed', target: '#toolCall.done', actions: 'markFailed' },
          invoke: {
            src: 'rollbackCall',
            input: ({ context }) => ({ input: context.input, checkpointId: context.checkpointId }),
            onDone: [
              {
                guard: { type: 'sandboxRestored', params: ({ event }) => ({ report: event.output }) },
                target: '#toolCall.done',
                actions: { type: 'markRolledBack', params: ({ event }) => ({ report: event.output }) },
              },
              { target: '#toolCall.done', actions: 'markFailed' },
            ],
            onError: { target: '#toolCall.done', actions: { type: 'markRollbackFailed', params: ({ event }) => ({ error: event.error }) } },
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
