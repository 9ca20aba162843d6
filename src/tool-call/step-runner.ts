/**
 * The one runner of a call's steps (`call-flow.ts`): it performs a step's I/O, times it against
 * the call's `timeoutMs` and races it against the call's cancel (through the one deadline,
 * `deadline.ts`), and holds the sandbox lock a step acquired until the call ends. Both paths run
 * every step through it: the fast path (`fast-tool-call.ts`) calls `run` in a plain loop, the
 * tool-call machine's one actor (`tool-call-actors.ts`) calls it for each `step.run` and answers
 * with `step.done` or `step.timeout`. What a step does is the step list's; when and how long it may
 * take is said here, once.
 */
import { fixedMove, reasonText, type CallState, type CallStep, type Move, type StepName, type StepScope } from './call-flow.js';
import { LinkedCallSignal, type CallSignal } from '../registry/call-signal.js';
import { timeoutReason, withDeadline } from '../timing/deadline.js';
import type { ToolCallSteps } from './tool-call-steps.js';

/**
 * One call's runner: the signal its steps get (made when a step first reads it; aborted by the
 * call's cancel and by a step's timeout) and the locks it holds until `end()`.
 */
export class StepRunner implements StepScope {
  #signal: LinkedCallSignal | undefined;
  #timedOut: { readonly reason: unknown; readonly step: StepName } | undefined;
  #held: (() => void)[] | undefined;
  #ended = false;
  /** Whether the step running now is timed by the runner (then its signal is one of the runner's own). */
  #timing = false;

  /** `call` is the call's own signal: its abort is the call's cancel. */
  constructor(
    private readonly steps: ToolCallSteps,
    private readonly call: CallSignal,
  ) {}

  get signal(): CallSignal {
    // A step the runner does not time (the tool keeps its own deadline) is only ever aborted with
    // the call: the call's own signal serves, and no child signal is made for it.
    if (!this.#timing && this.#timedOut === undefined) return this.call;
    let signal = this.#signal;
    if (signal === undefined) {
      signal = LinkedCallSignal.within(this.call);
      if (this.#timedOut) signal.abort(this.#timedOut.reason);
      this.#signal = signal;
    }
    return signal;
  }

  /** The step whose timeout ran out, if one did (the call then leaves it by its `timeout` move). */
  get timedOutStep(): StepName | undefined {
    return this.#timedOut?.step;
  }

  hold(release: () => void): void {
    if (this.#ended) release();
    else (this.#held ??= []).push(release);
  }

  /** Lets go of every lock the call's steps acquired; a lock acquired later is let go at once. */
  end(): void {
    this.#ended = true;
    this.#signal?.unlink();
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined) for (const release of held) release();
  }

  /**
   * Performs one step's I/O: its move, at once when the step answers at once, else raced against
   * the call's cancel and timed by the call's `timeoutMs` when the step has a `cancel` and a
   * `timeout` move and does not answer them itself (`answersItself`). Never rejects.
   */
  run(step: CallStep, state: CallState): Move | Promise<Move> {
    const { cancel, timeout } = step;
    const call = this.call;
    if (cancel !== undefined && call.aborted) return fixedMove(cancel, state, reasonText(call.reason));
    // A step whose I/O answers the cancel and the deadline itself is neither timed nor raced here.
    const itself = step.answersItself?.(this.steps, state) === true;
    const timed = timeout !== undefined && !itself;
    const races = cancel !== undefined && !itself;
    this.#timing = timed;
    if (step.perform === undefined) throw new Error(`the "${step.name}" step decides without I/O; it is never run`);
    const pending = step.perform(this.steps, state, this);
    if (!(pending instanceof Promise) || (!timed && !races)) return pending;
    const ms = state.input.timeoutMs;
    return withDeadline<Move>(pending, {
      ms: timed ? ms : undefined,
      signal: races ? call : undefined,
      onAbort: cancel === undefined ? undefined : (reason) => fixedMove(cancel, state, reasonText(reason)),
      onTimeout:
        timeout === undefined
          ? undefined
          : () => {
              const reason = timeoutReason(ms);
              this.#timedOut = { reason, step: step.name };
              this.#signal?.abort(reason);
              return fixedMove(timeout, state);
            },
    });
  }
}
