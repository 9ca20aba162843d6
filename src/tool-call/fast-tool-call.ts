/**
 * The fast path: the call's step list (`call-flow.ts`) walked as plain function calls — no actor,
 * no transitions — for a call that needs no checkpoint (a read-only tool) when nobody is
 * inspecting. Creating and running a machine actor costs tens of microseconds; an in-process read
 * call should cost a few. Every decision is the step list's, so the walk and the machine cannot
 * differ in what a call does; `properties/fast-path.test.ts` checks that they agree.
 */
import { FIRST_STEP, STEP, fixedMove, initialState, outcomeOf, reasonText, type CallState, type CallStep, type Move, type StepScope, type Target } from './call-flow.js';
import { LinkedCallSignal, type CallSignal } from './call-signal.js';
import type { CallOutcome, ToolCallInput } from './tool-call-io.js';
import type { ToolCallSteps } from './tool-call-steps.js';

/** Whether a call may take the fast path: no checkpoint needed and nobody inspecting. */
export function canTakeFastPath(input: ToolCallInput, inspected: boolean): boolean {
  return !inspected && input.tool.capabilities.readOnly;
}

const NEVER_CANCELLED: CallSignal = new LinkedCallSignal();

/**
 * Walks a call through its steps. `call` is the call's own signal (cancel); the steps that run get
 * a signal of their own, aborted on cancel or on their timeout.
 */
export async function fastToolCall(steps: ToolCallSteps, input: ToolCallInput, call: CallSignal = NEVER_CANCELLED): Promise<CallOutcome> {
  const walk = new Walk(steps, call);
  // The walk's own copy, patched in place: the steps read it only while their step runs, and a
  // fresh copy per patch (what the machine's context does) is a third of the walk's garbage.
  const state: { -readonly [K in keyof CallState]: CallState[K] } = initialState(input);
  let at: Target = FIRST_STEP;
  try {
    while (at !== 'done') {
      const step: CallStep = STEP[at];
      let move = step.decide?.move(state);
      if (move === undefined) {
        const pending = walk.perform(step, state);
        move = pending instanceof Promise ? await pending : pending;
      }
      if (move.patch !== undefined) Object.assign(state, move.patch);
      at = move.to;
    }
  } finally {
    walk.end();
  }
  return outcomeOf(state);
}

/**
 * One walk's scope: the signal its steps get (made when a step first reads it; aborted by the
 * call's cancel and by a step's timeout) and the locks it holds until the walk ends.
 */
class Walk implements StepScope {
  #signal: LinkedCallSignal | undefined;
  #timedOut: { reason: unknown } | undefined;
  #held: (() => void)[] | undefined;
  /** Whether the step running now is timed by the walk (then its signal is one of the walk's own). */
  #timing = false;

  constructor(
    private readonly steps: ToolCallSteps,
    private readonly call: CallSignal,
  ) {}

  get signal(): CallSignal {
    // A step the walk does not time (the tool keeps its own deadline) is only ever aborted with
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

  hold(release: () => void): void {
    (this.#held ??= []).push(release);
  }

  end(): void {
    this.#signal?.unlink();
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined) for (const release of held) release();
  }

  /** One step's I/O, raced against the call's cancel and the step's timeout when it has them. */
  perform(step: CallStep, state: CallState): Move | Promise<Move> {
    const { cancel, timeout } = step;
    const call = this.call;
    if (cancel !== undefined && call.aborted) return fixedMove(cancel, state, reasonText(call.reason));
    // A step whose I/O answers the cancel and the deadline itself is neither timed nor raced here.
    const itself = step.answersItself?.(this.steps, state) === true;
    const timed = timeout !== undefined && !itself;
    const races = cancel !== undefined && !itself;
    this.#timing = timed;
    const pending = step.perform!(this.steps, state, this);
    if (!(pending instanceof Promise) || (!timed && !races)) return pending;
    return new Promise<Move>((resolve) => {
      let settled = false;
      const finish = (move: Move): void => {
        if (settled) return;
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        unlisten();
        resolve(move);
      };
      const unlisten = !races ? noop : call.onAbort((reason) => finish(fixedMove(cancel, state, reasonText(reason))));
      const timer =
        !timed
          ? undefined
          : setTimeout(() => {
              finish(fixedMove(timeout!, state));
              const reason = new DOMException(`the call timed out after ${state.input.timeoutMs} ms`, 'TimeoutError');
              this.#timedOut = { reason };
              this.#signal?.abort(reason);
            }, state.input.timeoutMs);
      pending.then(finish);
    });
  }
}

const noop = (): void => undefined;
