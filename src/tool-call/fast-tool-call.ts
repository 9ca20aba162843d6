/**
 * The fast path: the call's step list (`call-flow.ts`) walked as plain function calls — no actor,
 * no transitions — for a call that needs no checkpoint (a read-only tool) when nobody is
 * inspecting. Creating and running a machine actor costs tens of microseconds; an in-process read
 * call should cost a few. Every decision is the step list's, so the walk and the machine cannot
 * differ in what a call does; `properties/fast-path.test.ts` checks that they agree.
 */
import { FIRST_STEP, STEP, fixedMove, needsTimer, initialState, outcomeOf, reasonText, type CallState, type CallStep, type Move, type StepScope, type Target } from './call-flow.js';
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
  let state: CallState = initialState(input);
  let at: Target = FIRST_STEP;
  try {
    while (at !== 'done') {
      const step: CallStep = STEP[at];
      let move = step.decide?.move(state);
      if (move === undefined) {
        const pending = walk.perform(step, state);
        move = pending instanceof Promise ? await pending : pending;
      }
      if (move.patch !== undefined) state = { ...state, ...move.patch };
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

  constructor(
    private readonly steps: ToolCallSteps,
    private readonly call: CallSignal,
  ) {}

  get signal(): CallSignal {
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
    const pending = step.perform!(this.steps, state, this);
    const timed = timeout !== undefined && needsTimer(step, this.steps, state);
    if (!(pending instanceof Promise) || (cancel === undefined && !timed)) return pending;
    return new Promise<Move>((resolve) => {
      let settled = false;
      const finish = (move: Move): void => {
        if (settled) return;
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        unlisten();
        resolve(move);
      };
      const unlisten = cancel === undefined ? noop : call.onAbort((reason) => finish(fixedMove(cancel, state, reasonText(reason))));
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
