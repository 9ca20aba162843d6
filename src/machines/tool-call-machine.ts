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
import { McpActorsError, isMcpActorsError, messageOf } from '../errors/mcp-actors-error.js';
import { compileSchema, describeViolations, violationsOf } from '../registry/json-schema-validators.js';
import type { ToolResult } from '../registry/tool-descriptor.js';
import type { Authorization, CallOutcome, CallStatus, CommitReport, FileChange, RollbackReport, ToolCallInput } from './tool-call-io.js';

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

function asError(error: unknown, code: ErrorCode, message: string): McpActorsError {
  return isMcpActorsError(error) ? error : new McpActorsError(code, `${message}: ${messageOf(error)}`, { cause: error });
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
    argsAreValid: ({ context }) => {
      const schema = compileSchema(context.input.tool.inputSchema);
      return schema.ok && schema.validate(context.args) === true;
    },
    isAllowed: ({ event }) => (event as unknown as { output: Authorization }).output.allowed,
    isSandboxed: ({ context }) => context.input.sandboxed,
    mayWrite: ({ context }) => mayWrite(context.input),
    resultSucceeded: ({ event }) => (event as unknown as { output: ToolResult }).output.success,
    commitOk: ({ event }) => (event as unknown as { output: CommitReport }).output.ok,
    notSandboxed: ({ context }) => !context.input.sandboxed,
    sandboxRestored: ({ event }) => (event as unknown as { output: RollbackReport }).output.restored,
  },
  actions: {
    rejectInvalidArgs: assign(({ context }) => {
      const { tool } = context.input;
      const schema = compileSchema(tool.inputSchema);
      const detail = schema.ok ? describeViolations(violationsOf(schema.validate.errors)) : `its input schema does not compile (${schema.problem})`;
      return {
        status: 'rejected' as const,
        error: new McpActorsError(ErrorCode.INVALID_ARGUMENT, `the arguments of "${tool.name}" do not match its input schema: ${detail}`, {
          details: { tool: tool.name, violations: schema.ok ? violationsOf(schema.validate.errors) : [] },
        }),
      };
    }),
    rejectUnauthorized: assign(({ event, context }) => {
      const denial = (event as unknown as { output: Authorization & { allowed: false } }).output;
      return {
        status: 'rejected' as const,
        error: new McpActorsError(ErrorCode.PERMISSION_DENIED, `"${context.input.tool.name}" was not allowed: ${denial.reason}`, {
          details: { tool: context.input.tool.name, rule: denial.rule },
        }),
      };
    }),
    rejectWith: assign(({ event }) => ({
      status: 'rejected' as const,
      error: asError((event as unknown as { error: unknown }).error, ErrorCode.SANDBOX_PATH, 'the call could not be prepared'),
    })),
    failWith: assign(({ event }) => ({
      status: 'failed' as const,
      error: asError((event as unknown as { error: unknown }).error, ErrorCode.CHECKPOINT_FAILED, 'the call failed'),
    })),
    rememberArgs: assign({ args: ({ event }) => (event as unknown as { output: Record<string, unknown> }).output }),
    rememberCheckpoint: assign({ checkpointId: ({ event }) => (event as unknown as { output: string }).output }),
    rememberResult: assign({ result: ({ event }) => (event as unknown as { output: ToolResult }).output }),
    recordToolFailure: assign(({ event, context }) => {
      const result = (event as unknown as { output: ToolResult }).output;
      return {
        result,
        error: new McpActorsError(ErrorCode.TOOL_FAILED, `"${context.input.tool.name}" failed (${result.errorCode}): ${result.error}`, {
          details: { tool: context.input.tool.name, errorCode: result.errorCode },
        }),
      };
    }),
    recordInvokeError: assign(({ event, context }) => ({
      error: asError((event as unknown as { error: unknown }).error, ErrorCode.TOOL_FAILED, `"${context.input.tool.name}" threw`),
    })),
    recordTimeout: assign(({ context }) => ({
      error: new McpActorsError(
        ErrorCode.REQUEST_TIMEOUT,
        `"${context.input.tool.name}" did not finish within ${context.input.timeoutMs} ms; it was cancelled`,
        { details: { tool: context.input.tool.name, timeoutMs: context.input.timeoutMs } },
      ),
    })),
    recordCancel: assign(({ event, context }) => ({
      error: new McpActorsError(ErrorCode.CANCELLED, `"${context.input.tool.name}" was cancelled${event.type === 'call.cancel' && event.reason ? `: ${event.reason}` : ''}`, {
        details: { tool: context.input.tool.name },
      }),
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
      note: context.input.tool.checkpointable
        ? undefined
        : 'the sandbox was restored; effects of this tool outside the sandbox (it is not checkpointable) were not undone',
    })),
    markRollbackFailed: assign(({ event, context }) => ({
      status: 'failed' as const,
      error: new McpActorsError(ErrorCode.CHECKPOINT_FAILED, `rolling back after "${context.input.tool.name}" failed: ${messageOf((event as unknown as { error: unknown }).error)}`, {
        cause: context.error,
      }),
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
        onError: { target: 'done', actions: 'rejectWith' },
      },
      on: { 'call.cancel': { target: 'done', actions: ['recordCancel', 'markFailed'] } },
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
