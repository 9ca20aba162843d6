/**
 * The fast path: the call's step list (`call-flow.ts`) walked as plain function calls — no actor,
 * no transitions — for a call that needs no checkpoint (a read-only tool) when nobody is
 * inspecting. Creating and running a machine actor costs tens of microseconds; an in-process read
 * call should cost a few. Every decision is the step list's and every step runs through the one
 * runner (`step-runner.ts`), so the walk and the machine cannot differ in what a call does, nor in
 * how a step is timed or cancelled; `properties/fast-path.test.ts` checks that they agree.
 */
import { FIRST_STEP, STEP, initialState, outcomeOf, type CallState, type CallStep, type Target } from './call-flow.js';
import { LinkedCallSignal, type CallSignal } from '../registry/call-signal.js';
import { StepRunner } from './step-runner.js';
import type { CallOutcome, ToolCallInput } from './tool-call-io.js';
import type { ToolCallSteps } from './tool-call-steps.js';

/** Whether a call may take the fast path: no checkpoint needed and nobody inspecting. */
export function canTakeFastPath(input: ToolCallInput, inspected: boolean): boolean {
  return !inspected && input.tool.capabilities.readOnly;
}

const NEVER_CANCELLED: CallSignal = new LinkedCallSignal();

/**
 * Walks a call through its steps. `call` is the call's own signal (cancel); the steps that run get
 * a signal of their own, aborted on cancel or on their timeout (the runner's).
 */
export async function fastToolCall(steps: ToolCallSteps, input: ToolCallInput, call: CallSignal = NEVER_CANCELLED): Promise<CallOutcome> {
  // The one step runner (`step-runner.ts`), as the machine's actor uses it: timer, cancel race, locks.
  const runner = new StepRunner(steps, call);
  // The walk's own copy, patched in place: the steps read it only while their step runs, and a
  // fresh copy per patch (what the machine's context does) is a third of the walk's garbage.
  const state: { -readonly [K in keyof CallState]: CallState[K] } = initialState(input);
  let at: Target = FIRST_STEP;
  try {
    while (at !== 'done') {
      const step: CallStep = STEP[at];
      let move = step.decide?.move(state);
      if (move === undefined) {
        const pending = runner.run(step, state);
        move = pending instanceof Promise ? await pending : pending;
      }
      if (move.patch !== undefined) Object.assign(state, move.patch);
      at = move.to;
    }
  } finally {
    runner.end();
  }
  return outcomeOf(state);
}
