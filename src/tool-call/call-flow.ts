/**
 * What a tool call does, said once: the ordered list of its steps. Each step either decides its
 * move from the call's state alone (pure: validating, and any step this call skips) or performs
 * one piece of I/O through `ToolCallSteps` and turns the answer into a move. Both paths walk this
 * list: the tool-call machine (`src/tool-call/tool-call-machine.ts`) is built from it — one state a
 * step, its transitions drawn from `to` — and the fast path (`fast-tool-call.ts`) walks it as plain
 * function calls; both run a step's I/O through the one step runner (`step-runner.ts`: timer,
 * cancel race, locks). Neither adds a decision of its own, so they cannot drift apart;
 * `properties/fast-path.test.ts` checks that they agree anyway.
 *
 *   validating → authorizing → acquiring → rewritingPaths → checkpointing → invoking
 *              → rewritingResult → committing | rollingBack → done
 *
 * Authorizing is I/O only when a person must be asked (the host's approval callback); a policy
 * that answers by itself (a read tool, execute under `allow` or `deny`) is a decision the call's
 * input carries. A call without a sandbox skips the lock, the path rewriting, the checkpoint, the result rewriting
 * and the commit (there is nothing to lock, rewrite or record), and a failure ends it without a
 * rollback. Arguments are validated once, against what the tool receives: before anything else
 * without a sandbox, right after rewriting to sandbox paths in one.
 */
import { ErrorCode } from '../errors/codes.js';
import type { McpActorsError } from '../errors/mcp-actors-error.js';
import type { ToolResult } from '../registry/tool-descriptor.js';
import type { CallSignal } from '../registry/call-signal.js';
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
} from './tool-call-errors.js';
import type { Authorization, CallOutcome, CallStatus, CommitReport, FileChange, RollbackReport, ToolCallInput } from './tool-call-io.js';
import type { ToolCallSteps } from './tool-call-steps.js';

/** Everything a call knows so far: the machine's context, the fast path's local state. */
export interface CallState {
  readonly input: ToolCallInput;
  /** The arguments the tool will receive (sandbox paths, once rewritten). */
  readonly args: Readonly<Record<string, unknown>>;
  readonly checkpointId: string | undefined;
  readonly result: ToolResult | undefined;
  readonly changes: readonly FileChange[];
  readonly error: McpActorsError | undefined;
  readonly status: CallStatus | undefined;
  readonly note: string | undefined;
}

export const STEP_NAMES = [
  'validating',
  'authorizing',
  'acquiring',
  'rewritingPaths',
  'checkpointing',
  'invoking',
  'rewritingResult',
  'committing',
  'rollingBack',
] as const;
export type StepName = (typeof STEP_NAMES)[number];
export type Target = StepName | 'done';

/** Where a step sends the call, and what it learnt on the way. */
export interface Move {
  readonly to: Target;
  readonly patch?: Partial<CallState>;
}

/** What a step performing I/O is given besides the call's state. */
export interface StepScope {
  /** Aborted when the call is cancelled or the step times out. */
  readonly signal: CallSignal;
  /** Keeps the sandbox lock until the call has ended. */
  hold(release: () => void): void;
}

/** A move to one known target (a cancel, a timeout): one transition in the machine. */
export interface FixedMove<A extends unknown[]> {
  readonly to: Target;
  readonly patch: (state: CallState, ...args: A) => Partial<CallState>;
}

export interface CallStep {
  readonly name: StepName;
  /** Every target `perform` may move to: the machine's transitions are drawn from this. */
  readonly to: readonly Target[];
  /** The move when it needs no I/O for this call (pure; `undefined`: the step must `perform`), and its targets. */
  readonly decide?: { readonly to: readonly Target[]; readonly move: (state: CallState) => Move | undefined };
  /** The step's I/O; never rejects (a failure is a move too). */
  readonly perform?: (steps: ToolCallSteps, state: CallState, scope: StepScope) => Move | Promise<Move>;
  /** What a cancel does while the step runs; a step without it finishes first. */
  readonly cancel?: FixedMove<[reason: string | undefined]>;
  /**
   * What the call's `timeoutMs` running out does while the step runs (the timer starts with the
   * step, and only if it does not answer at once).
   */
  readonly timeout?: FixedMove<[]>;
  /**
   * Whether this call's I/O for the step answers the call's cancel and its deadline by itself, at
   * once (a tool that keeps its own deadline answers CANCELLED or REQUEST_TIMEOUT): then a runner
   * arms no timer for it, and the fast path races no cancel (the machine still leaves on its
   * cancel event; `perform` turns the tool's own CANCELLED answer into the same `cancel` move).
   */
  readonly answersItself?: (steps: ToolCallSteps, state: CallState) => boolean;
}

/** A fixed move as a move. */
export function fixedMove<A extends unknown[]>(move: FixedMove<A>, state: CallState, ...args: A): Move {
  return { to: move.to, patch: move.patch(state, ...args) };
}

const mayWrite = (state: CallState): boolean => !state.input.tool.capabilities.readOnly;
const unsandboxed = (state: CallState): boolean => !state.input.sandboxed;
const fail = (error: McpActorsError): Move => ({ to: 'done', patch: { status: 'failed', error } });
const reject = (error: McpActorsError): Move => ({ to: 'done', patch: { status: 'rejected', error } });
const CANCELLED: FixedMove<[reason: string | undefined]> = {
  to: 'done',
  patch: (state, reason) => ({ status: 'failed', error: cancelledError(state.input, reason) }),
};
const waitedTooLong = (what: 'approval' | 'the sandbox lock'): FixedMove<[]> => ({
  to: 'done',
  patch: (state) => ({ status: 'failed', error: waitedTooLongError(state.input, what) }),
});
const COMMITTED: Move = { to: 'done', patch: { status: 'committed', error: undefined } };
// Moves without a patch, made once (every call makes several; nobody changes a move).
const TO_AUTHORIZING: Move = Object.freeze({ to: 'authorizing' });
const TO_ACQUIRING: Move = Object.freeze({ to: 'acquiring' });
const TO_INVOKING: Move = Object.freeze({ to: 'invoking' });
const TO_COMMITTING: Move = Object.freeze({ to: 'committing' });

/** Runs `run` and turns its answer (or its throw, sync or async) into a move. */
function settle<T>(run: () => T | Promise<T>, done: (value: T) => Move, failed: (error: unknown) => Move): Move | Promise<Move> {
  let value: T | Promise<T>;
  try {
    value = run();
  } catch (error) {
    return failed(error);
  }
  return value instanceof Promise ? value.then(done, failed) : done(value);
}

/** The tool's answer, which invoking sets before the result is rewritten. */
function resultOf(state: CallState): ToolResult {
  if (state.result === undefined) throw new Error(`call ${state.input.callId} of "${state.input.tool.name}" has no result to rewrite`);
  return state.result;
}

function authorized(state: CallState, authorization: Authorization): Move {
  return authorization.allowed ? TO_ACQUIRING : reject(deniedError(state.input, authorization));
}

const INVOKE_CANCEL: FixedMove<[reason: string | undefined]> = {
  to: 'rollingBack',
  patch: (state, reason) => ({ error: cancelledError(state.input, reason) }),
};

/** The steps of every call, in order; a step's targets are always later in the list (or `done`). */
export const CALL_STEPS: readonly CallStep[] = [
  {
    name: 'validating',
    to: [],
    // In a sandbox the tool receives rewritten paths: they are validated after rewritingPaths.
    decide: {
      to: ['authorizing', 'done'],
      move: (state) =>
        state.input.sandboxed || argsAreValid(state.input, state.args) ? TO_AUTHORIZING : reject(invalidArgsError(state.input, state.args)),
    },
  },
  {
    name: 'authorizing',
    to: ['acquiring', 'done'],
    // A policy that needs nobody asked has answered already (the call's input carries it).
    decide: {
      to: ['acquiring', 'done'],
      move: (state) => (state.input.authorization === undefined ? undefined : authorized(state, state.input.authorization)),
    },
    perform: (steps, state) =>
      settle(
        () => steps.authorize(state.input),
        (authorization) => authorized(state, authorization),
        (error) => reject(authorizeFailedError(state.input, error)),
      ),
    cancel: CANCELLED,
    timeout: waitedTooLong('approval'),
  },
  {
    name: 'acquiring',
    to: ['rewritingPaths', 'done'],
    decide: { to: ['invoking'], move: (state) => (unsandboxed(state) ? TO_INVOKING : undefined) },
    perform: (steps, state, scope) =>
      settle(
        () => steps.acquireLock(mayWrite(state) ? 'write' : 'read', scope.signal.signal),
        (release) => {
          // Granted after the step was given up: let it go at once.
          if (scope.signal.aborted) release();
          else scope.hold(release);
          return { to: 'rewritingPaths' };
        },
        (error) => fail(asCallError(error, ErrorCode.CHECKPOINT_FAILED, 'the call failed')),
      ),
    cancel: CANCELLED,
    timeout: waitedTooLong('the sandbox lock'),
  },
  {
    name: 'rewritingPaths',
    to: ['checkpointing', 'invoking', 'done'],
    perform: (steps, state) =>
      settle(
        () => steps.rewriteArgs(state.input, state.args),
        (args) =>
          !argsAreValid(state.input, args)
            ? reject(invalidArgsError(state.input, args))
            : { to: mayWrite(state) ? 'checkpointing' : 'invoking', patch: { args } },
        (error) => reject(asCallError(error, ErrorCode.SANDBOX_PATH, 'the call could not be prepared')),
      ),
  },
  {
    name: 'checkpointing',
    to: ['invoking', 'done'],
    perform: (steps, state) =>
      settle(
        () => steps.checkpoint(state.input),
        (checkpointId) => ({ to: 'invoking', patch: { checkpointId } }),
        (error) => fail(asCallError(error, ErrorCode.CHECKPOINT_FAILED, 'the call failed')),
      ),
  },
  {
    name: 'invoking',
    to: ['rewritingResult', 'rollingBack'],
    perform: (steps, state, scope) =>
      settle(
        () => steps.invoke(state.input, state.args, scope.signal),
        (result: ToolResult): Move =>
          result.success
            ? { to: 'rewritingResult', patch: { result } }
            : // The tool's own answer to this call's cancel is the cancel, as if the runner had raced it.
              result.errorCode === 'CANCELLED' && scope.signal.aborted
              ? fixedMove(INVOKE_CANCEL, state, reasonText(scope.signal.reason))
              : { to: 'rollingBack', patch: { result, error: toolFailedError(state.input, result) } },
        (error) => ({ to: 'rollingBack', patch: { error: threwError(state.input, error) } }),
      ),
    cancel: INVOKE_CANCEL,
    timeout: { to: 'rollingBack', patch: (state) => ({ error: timeoutError(state.input) }) },
    // A handler that keeps the deadline itself answers REQUEST_TIMEOUT and CANCELLED at once: a
    // second timer and a second race would only cost.
    answersItself: (steps, state) => steps.keepsOwnDeadline?.(state.input) === true,
  },
  {
    name: 'rewritingResult',
    to: ['committing', 'rollingBack'],
    decide: { to: ['committing'], move: (state) => (unsandboxed(state) ? TO_COMMITTING : undefined) },
    perform: (steps, state) =>
      settle(
        () => steps.rewriteResult(state.input, resultOf(state)),
        (result) => ({ to: 'committing', patch: { result } }),
        (error) => ({ to: 'rollingBack', patch: { error: threwError(state.input, error) } }),
      ),
  },
  {
    name: 'committing',
    to: ['done', 'rollingBack'],
    decide: { to: ['done'], move: (state) => (unsandboxed(state) ? COMMITTED : undefined) },
    perform: (steps, state) =>
      settle(
        () => steps.commit(state.input, state.checkpointId),
        (report: CommitReport): Move =>
          report.ok
            ? { to: 'done', patch: { status: 'committed', error: undefined, changes: report.changes } }
            : { to: 'rollingBack', patch: { error: report.violation, changes: report.changes } },
        (error) => ({ to: 'rollingBack', patch: { error: threwError(state.input, error) } }),
      ),
  },
  {
    name: 'rollingBack',
    to: ['done'],
    // Nothing to restore without a sandbox: the call failed.
    decide: { to: ['done'], move: (state) => (unsandboxed(state) ? { to: 'done', patch: { status: 'failed' } } : undefined) },
    perform: (steps, state) =>
      settle(
        () => steps.rollback(state.input, state.checkpointId),
        (report: RollbackReport): Move =>
          report.restored
            ? { to: 'done', patch: { status: 'rolled-back', error: report.violation ?? state.error, note: rolledBackNote(state.input) } }
            : { to: 'done', patch: { status: 'failed' } },
        (error) => fail(rollbackFailedError(state.input, error, state.error)),
      ),
  },
];

/** The steps by name. */
export const STEP: Readonly<Record<StepName, CallStep>> = Object.fromEntries(CALL_STEPS.map((step) => [step.name, step])) as Record<
  StepName,
  CallStep
>;

export const FIRST_STEP: StepName = 'validating';

/**
 * A move carried on through every step it lands on that decides without I/O (a step this call
 * skips): where the call really goes next, with what it learnt on the way.
 */
export function followSkips(state: CallState, move: Move): Move {
  let { to, patch } = move;
  while (to !== 'done') {
    const decided = STEP[to].decide?.move(patch === undefined ? state : { ...state, ...patch });
    if (decided === undefined) break;
    to = decided.to;
    if (decided.patch !== undefined) patch = patch === undefined ? decided.patch : { ...patch, ...decided.patch };
  }
  return patch === undefined ? { to } : { to, patch };
}

/** Every target a move to one of `targets` may end at once skips are followed (for the machine's transitions). */
export function reachable(targets: readonly Target[]): Target[] {
  const found = new Set<Target>();
  const visit = (to: Target): void => {
    if (found.has(to)) return;
    const step = to === 'done' ? undefined : STEP[to];
    if (step === undefined || step.perform !== undefined) found.add(to);
    for (const next of step?.decide?.to ?? []) visit(next);
  };
  for (const to of targets) visit(to);
  return [...found];
}

export function initialState(input: ToolCallInput): CallState {
  return {
    input,
    args: input.args,
    checkpointId: undefined,
    result: undefined,
    changes: NO_CHANGES,
    error: undefined,
    status: undefined,
    note: undefined,
  };
}

const NO_CHANGES: readonly FileChange[] = Object.freeze([]);

/** The outcome of a call that reached `done`. */
export function outcomeOf(state: CallState): CallOutcome {
  return {
    callId: state.input.callId,
    tool: state.input.tool.name,
    status: state.status ?? 'failed',
    result: state.result,
    changes: state.changes,
    checkpointId: state.checkpointId,
    error: state.error,
    note: state.note,
    durationMs: Date.now() - state.input.startedAt,
  };
}

/** A cancel reason as the error message says it. */
export function reasonText(reason: unknown): string | undefined {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a cancel reason is whatever the caller gave abort(): its own String() is its text
  return reason === undefined ? undefined : String(reason instanceof Error ? reason.message : reason);
}
