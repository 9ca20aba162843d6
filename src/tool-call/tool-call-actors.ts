/**
 * The tool-call machine's one actor: the runner of its steps. The machine sends `step.run` when it
 * enters a step with I/O; the runner performs it through the call's step list (`call-flow.ts`) and
 * answers `step.done` with the step's move. `step.abort` (a cancel, a timeout) aborts the step's
 * signal and drops its late answer. When the call ends the runner is stopped and lets go of the
 * sandbox lock it holds.
 */
import { fromCallback } from 'xstate';
import { STEP, type Move, type StepName } from './call-flow.js';
import { LinkedCallSignal } from './call-signal.js';
import type { StepRunnerEvent, ToolCallEvent } from '../machines/tool-call-machine.js';
import type { ToolCallSteps } from './tool-call-steps.js';

export function toolCallActors(steps: ToolCallSteps) {
  return {
    runSteps: fromCallback<StepRunnerEvent>(({ sendBack, receive }) => {
      let running: { readonly step: StepName; readonly signal: LinkedCallSignal } | undefined;
      const held: (() => void)[] = [];
      let stopped = false;
      const hold = (release: () => void): void => {
        if (stopped) release();
        else held.push(release);
      };
      receive((event) => {
        if (event.type === 'step.abort') {
          if (running?.step === event.step) {
            running.signal.abort(event.reason);
            running = undefined;
          }
          return;
        }
        const { step, state } = event;
        const current = { step, signal: new LinkedCallSignal() };
        running = current;
        const answer = (move: Move): void => {
          if (running !== current || stopped) return;
          running = undefined;
          sendBack({ type: 'step.done', step, move } satisfies ToolCallEvent);
        };
        const move = STEP[step].perform!(steps, state, { signal: current.signal, hold });
        if (move instanceof Promise) void move.then(answer);
        else answer(move);
      });
      return () => {
        stopped = true;
        running?.signal.abort('the call ended');
        running = undefined;
        for (const release of held.splice(0)) release();
      };
    }),
  };
}
