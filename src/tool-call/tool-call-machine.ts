/**
 * Every tool call as a statechart, built from the call's step list (`src/tool-call/call-flow.ts`):
 * one state a step, in the list's order, then `done`.
 *
 *   validating → authorizing → acquiring → rewritingPaths → checkpointing → invoking
 *              → rewritingResult → committing | rollingBack → done
 *
 * A step that decides from the call's state alone (validating, or a step this call skips) is an
 * eventless transition; a step with I/O asks the call's one step runner (`runSteps`, invoked for
 * the machine's whole life; it runs each step through `StepRunner` in `src/tool-call/step-runner.ts`,
 * the fast path's runner too) and moves when it answers `step.done`. One child actor a call instead
 * of one a step: that is most of what a machine call costs. Cancel (`call.cancel`) and the call's
 * timeout (timed by the runner, only for a step that does not answer at once) act only in the steps
 * the list gives them to (a cancel heard in another step is kept by the runner and taken by the next
 * step with a cancel move, as on the fast path); the steps a call skips are never entered. Every call ends exactly once, with an
 * outcome whose status is committed, rolled-back, failed or rejected. Pure: the I/O comes in through
 * `setup({ actors })` (`toolCallActors(steps)` in `src/tool-call/tool-call-actors.ts`).
 */
import { assign, enqueueActions, fromCallback, setup } from 'xstate';
import {
  CALL_STEPS,
  FIRST_STEP,
  STEP,
  followSkips,
  initialState,
  reachable,
  outcomeOf,
  type CallState,
  type CallStep,
  type Move,
  type StepName,
  type Target,
} from './call-flow.js';
import type { CallOutcome, ToolCallInput } from './tool-call-io.js';

export type ToolCallContext = CallState;

/** What the call machine hears: a cancel from outside, a step's answer from its runner. */
export type ToolCallEvent =
  | { readonly type: 'call.cancel'; readonly reason?: string }
  | { readonly type: 'step.done'; readonly step: StepName; readonly move: Move }
  | { readonly type: 'step.timeout'; readonly step: StepName };

/** What the step runner hears from the call machine. */
export type StepRunnerEvent =
  | { readonly type: 'step.run'; readonly step: StepName; readonly state: CallState }
  | { readonly type: 'step.abort'; readonly step: StepName; readonly reason: unknown }
  /** The call was cancelled in a step that finishes first: the next step with a cancel move takes it (as on the fast path). */
  | { readonly type: 'call.cancelled'; readonly reason: unknown };

interface StepParams {
  readonly step: StepName;
}

/**
 * The last decision asked for: an eventless transition's guards (one a target) and its action all
 * ask it of the same context, which never changes (an assign makes a new one). A memo of a pure
 * function, by identity; it holds one context at most.
 */
let lastDecision: { readonly context: CallState; readonly step: StepName; readonly move: Move | undefined } | undefined;

/** The move a step decides from the context alone, skips followed; undefined when it must perform. */
function decisionOf(context: CallState, step: StepName): Move | undefined {
  const last = lastDecision;
  if (last !== undefined && last.context === context && last.step === step) return last.move;
  const decided = STEP[step].decide?.move(context);
  const move = decided === undefined ? undefined : followSkips(context, decided);
  lastDecision = { context, step, move };
  return move;
}

/** The move a step decided (pure, skips followed), or the one its runner answered (skips followed there). */
function moveOf(context: CallState, event: ToolCallEvent, step: StepName, kind: 'decide' | 'done'): Move | undefined {
  if (kind === 'decide') return decisionOf(context, step);
  return event.type === 'step.done' && event.step === step ? event.move : undefined;
}

function notProvided(name: string): never {
  throw new Error(
    `the tool-call machine's "${name}" actor was not provided; use toolCallMachine.provide({ actors: toolCallActors(steps) })`,
  );
}

const callSetup = setup({
  types: {
    context: {} as ToolCallContext,
    events: {} as ToolCallEvent,
    input: {} as ToolCallInput,
    output: {} as CallOutcome,
  },
  actors: {
    runSteps: fromCallback<StepRunnerEvent>(() => notProvided('runSteps')),
  },
  guards: {
    decidedTo: ({ context, event }, params: StepParams & { readonly to: Target }) =>
      moveOf(context, event, params.step, 'decide')?.to === params.to,
    answeredTo: ({ context, event }, params: StepParams & { readonly to: Target }) =>
      moveOf(context, event, params.step, 'done')?.to === params.to,
  },
  actions: {
    applyDecision: assign(({ context, event }, params: StepParams) => moveOf(context, event, params.step, 'decide')?.patch ?? {}),
    applyAnswer: assign(({ context, event }, params: StepParams) => moveOf(context, event, params.step, 'done')?.patch ?? {}),
    applyCancel: assign(
      ({ context, event }, params: StepParams) =>
        STEP[params.step].cancel?.patch(context, event.type === 'call.cancel' ? event.reason : undefined) ?? {},
    ),
    applyTimeout: assign(({ context }, params: StepParams) => STEP[params.step].timeout?.patch(context) ?? {}),
    runStep: enqueueActions(({ context, enqueue }, params: StepParams) => {
      if (decisionOf(context, params.step) === undefined) enqueue.sendTo('runner', { type: 'step.run', step: params.step, state: context });
    }),
    tellRunner: enqueueActions(({ enqueue, event }) => {
      if (event.type === 'call.cancel') enqueue.sendTo('runner', { type: 'call.cancelled', reason: event.reason ?? 'cancelled' });
    }),
    abortStep: enqueueActions(({ enqueue, event }, params: StepParams) => {
      enqueue.sendTo('runner', {
        type: 'step.abort',
        step: params.step,
        reason: event.type === 'call.cancel' ? (event.reason ?? 'cancelled') : 'aborted',
      });
    }),
  },
});

type StepStateConfig = NonNullable<Parameters<typeof callSetup.createMachine>[0]['states']>[string];

/** A step's guarded transitions, one to each target it may decide or answer. */
function movesTo(step: CallStep, targets: readonly Target[], kind: 'decide' | 'done') {
  return targets.map((to) => ({
    guard: { type: kind === 'decide' ? ('decidedTo' as const) : ('answeredTo' as const), params: { step: step.name, to } },
    target: to,
    actions: { type: kind === 'decide' ? ('applyDecision' as const) : ('applyAnswer' as const), params: { step: step.name } },
  }));
}

function stepState(step: CallStep): StepStateConfig {
  const params = { step: step.name };
  return {
    ...(step.decide ? { always: movesTo(step, reachable(step.decide.to), 'decide') } : {}),
    ...(step.perform
      ? {
          entry: { type: 'runStep' as const, params },
          on: {
            'step.done': movesTo(step, reachable(step.to), 'done'),
            ...(step.cancel
              ? {
                  'call.cancel': {
                    target: step.cancel.to,
                    actions: [
                      { type: 'applyCancel' as const, params },
                      { type: 'abortStep' as const, params },
                    ],
                  },
                }
              : {}),
            // The runner times a step that did not answer at once, as the fast path does.
            ...(step.timeout ? { 'step.timeout': { target: step.timeout.to, actions: { type: 'applyTimeout' as const, params } } } : {}),
          },
        }
      : {}),
  };
}

export const toolCallMachine = callSetup.createMachine({
  id: 'toolCall',
  context: ({ input }) => initialState(input),
  // The one runner of the call's steps; stopped (releasing the lock it holds) when the call ends.
  invoke: { id: 'runner', src: 'runSteps' },
  // A cancel in a step without a cancel move (it finishes first) is not lost: the runner keeps it.
  on: { 'call.cancel': { actions: 'tellRunner' } },
  initial: FIRST_STEP,
  states: {
    ...Object.fromEntries(CALL_STEPS.map((step) => [step.name, stepState(step)])),
    done: { type: 'final' },
  },
  output: ({ context }) => outcomeOf(context),
});
