/**
 * The tool-call machine's one actor: the runner of its steps. The machine sends `step.run` when it
 * enters a step with I/O; the runner performs it through the call's step list (`call-flow.ts`) and
 * answers `step.done` with the step's move, carried on through the steps the call skips. A step
 * with a timeout that does not answer at once is timed here (as on the fast path): `step.timeout`.
 * `step.abort` (a cancel) aborts the step's signal and drops its late answer. When the call ends the
 * runner is stopped and lets go of the sandbox lock it holds.
 */
import { fromCallback } from 'xstate';
import { STEP, followSkips, needsTimer, type Move, type StepName } from './call-flow.js';
import { LinkedCallSignal } from './call-signal.js';
import type { StepRunnerEvent, ToolCallEvent } from '../machines/tool-call-machine.js';
import type { ToolCallSteps } from './tool-call-steps.js';

interface Running {
  readonly step: StepName;
  readonly signal: LinkedCallSignal;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export function toolCallActors(steps: ToolCallSteps) {
  return {
    runSteps: fromCallback<StepRunnerEvent>(({ sendBack, receive }) => {
      let running: Running | undefined;
      const held: (() => void)[] = [];
      let stopped = false;
      const hold = (release: () => void): void => {
        if (stopped) release();
        else held.push(release);
      };
      const drop = (reason: unknown): void => {
        if (running === undefined) return;
        if (running.timer !== undefined) clearTimeout(running.timer);
        running.signal.abort(reason);
        running = undefined;
      };
      receive((event) => {
        if (event.type === 'step.abort') {
          if (running?.step === event.step) drop(event.reason);
          return;
        }
        const { step, state } = event;
        const current: Running = { step, signal: new LinkedCallSignal(), timer: undefined };
        running = current;
        const answer = (move: Move): void => {
          if (running !== current || stopped) return;
          if (current.timer !== undefined) clearTimeout(current.timer);
          running = undefined;
          sendBack({ type: 'step.done', step, move: followSkips(state, move) } satisfies ToolCallEvent);
        };
        const definition = STEP[step];
        const move = definition.perform!(steps, state, { signal: current.signal, hold });
        if (!(move instanceof Promise)) return answer(move);
        if (needsTimer(definition, steps, state)) {
          current.timer = setTimeout(() => {
            if (running !== current || stopped) return;
            drop(new DOMException(`the call timed out after ${state.input.timeoutMs} ms`, 'TimeoutError'));
            sendBack({ type: 'step.timeout', step } satisfies ToolCallEvent);
          }, state.input.timeoutMs);
        }
        void move.then(answer);
      });
      return () => {
        stopped = true;
        drop('the call ended');
        for (const release of held.splice(0)) release();
      };
    }),
  };
}
