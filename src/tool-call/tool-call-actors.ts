/**
 * The tool-call machine's one actor: it hands each step to the call's step runner (`step-runner.ts`,
 * the one the fast path uses). The machine sends `step.run` when it enters a step with I/O; the
 * runner performs it through the call's step list (`call-flow.ts`) and the actor answers
 * `step.done` with the step's move, carried on through the steps the call skips, or `step.timeout`
 * when the runner's timer ran out on it. `step.abort` (a cancel) aborts the step's signal and drops
 * its late answer. When the call ends the actor is stopped and the runner lets go of the sandbox
 * lock it holds.
 */
import { fromCallback } from 'xstate';
import { STEP, followSkips, type Move, type StepName } from './call-flow.js';
import { LinkedCallSignal } from '../registry/call-signal.js';
import type { StepRunnerEvent, ToolCallEvent } from './tool-call-machine.js';
import { StepRunner } from './step-runner.js';
import type { ToolCallSteps } from './tool-call-steps.js';

export function toolCallActors(steps: ToolCallSteps) {
  return {
    runSteps: fromCallback<StepRunnerEvent>(({ sendBack, receive }) => {
      // The call as this runner sees it: aborted by the machine's `step.abort` (its cancel) and when
      // the call ends with a step still running. The machine itself leaves on `call.cancel`.
      const call = new LinkedCallSignal();
      // The one step runner, as the fast path uses it: the same timer, cancel race and locks.
      const runner = new StepRunner(steps, call);
      let running: StepName | undefined;
      let stopped = false;
      receive((event) => {
        if (event.type === 'call.cancelled') {
          call.abort(event.reason); // the step running now finishes; the next one with a cancel move takes it
          return;
        }
        if (event.type === 'step.abort') {
          if (running === event.step) {
            running = undefined; // its late answer is dropped
            call.abort(event.reason);
          }
          return;
        }
        const { step, state } = event;
        running = step;
        const answer = (move: Move): void => {
          if (running !== step || stopped) return;
          running = undefined;
          sendBack(
            runner.timedOutStep === step
              ? ({ type: 'step.timeout', step } satisfies ToolCallEvent)
              : ({ type: 'step.done', step, move: followSkips(state, move) } satisfies ToolCallEvent),
          );
        };
        const move = runner.run(STEP[step], state);
        if (move instanceof Promise) void move.then(answer);
        else answer(move);
      });
      return () => {
        stopped = true;
        if (running !== undefined) call.abort('the call ended');
        running = undefined;
        runner.end();
      };
    }),
  };
}
