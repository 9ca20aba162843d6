/**
 * The one deadline: waits for a piece of work within a time limit and a cancel, and always clears
 * its timer and its listener, however the wait ends (cockatiel's one `TimeoutPolicy`, the SDK's
 * `Protocol.request` that owns its timeout and its cancel). Every wait with a deadline uses it: the
 * tool call's step runner (`step-runner.ts`, both paths), the in-process server's handler, the MCP
 * client's wait for a shared listing, the rollback's grace for a tool still running, and the
 * server's bounded waits that go on after them (an exit after a failed handshake, a server asking
 * for roots, a transport's close, a stdio server's stop steps, an HTTP session's end).
 *
 * The work itself is left running: what a timeout or a cancel does to it (abort its signal) is the
 * caller's `onTimeout` / `onAbort`, which also say what the wait ends with — a value, or a throw.
 * Without them the wait rejects with an `McpActorsError` coded REQUEST_TIMEOUT or CANCELLED.
 */
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import { linkCallSignal, type CallSignal } from '../registry/call-signal.js';

/** What a wait can be cancelled by: a call's own signal, or a plain `AbortSignal`. */
export type CancelSource = AbortSignal | Pick<CallSignal, 'aborted' | 'reason' | 'onAbort'>;

export interface DeadlineOptions<T> {
  /** How long to wait, in milliseconds from now; undefined (or more than a timer can hold) waits without a timer. */
  readonly ms?: number | undefined;
  /** Ends the wait when aborted (at once when already aborted: then a function given as `work` is never run). */
  readonly signal?: CancelSource | undefined;
  /** What the wait ends with when the time runs out: its value, or its throw. Default: rejects REQUEST_TIMEOUT. */
  readonly onTimeout?: (() => T) | undefined;
  /** What the wait ends with on a cancel: its value, or its throw. Default: rejects CANCELLED. */
  readonly onAbort?: ((reason: unknown) => T) | undefined;
  /** Names the wait in the default errors ("the call", `call "echo" on server "s"`). */
  readonly what?: string | undefined;
  /** The timer does not keep the process alive (a grace wait during a close, not a call's limit). */
  readonly unref?: boolean | undefined;
}

/** setTimeout fires at once for anything longer (a 32-bit overflow), so such a deadline is no deadline. */
export const MAX_TIMER_MS = 2_147_483_647;

/** The reason a timed-out call's signal is aborted with (what `ctx.signal.reason` says to a tool). */
export function timeoutReason(ms: number): DOMException {
  return new DOMException(`the call timed out after ${ms} ms`, 'TimeoutError');
}

/**
 * Waits for `work` (a promise, or a function run now) for at most `ms`, and until `signal` aborts.
 *
 * @example
 * const page = await withDeadline(fetchPage(), { ms: 5_000, signal, what: 'tools/list' });
 * // rejects McpActorsError REQUEST_TIMEOUT after 5 s, CANCELLED when `signal` aborts
 */
export function withDeadline<T>(work: PromiseLike<T> | (() => T | PromiseLike<T>), options: DeadlineOptions<T>): Promise<T> {
  const { ms, signal } = options;
  if (signal?.aborted === true) return settleWith(() => onAbortOf(options)(signal.reason));
  let pending: T | PromiseLike<T>;
  if (typeof work === 'function') {
    try {
      pending = work();
    } catch (error) {
      return rejected(error);
    }
  } else pending = work;
  if (!isThenable(pending)) return Promise.resolve(pending);
  const timed = ms !== undefined && ms <= MAX_TIMER_MS;
  if (!timed && signal === undefined) return Promise.resolve(pending);
  const thenable = pending;
  return new Promise<T>((resolve, reject) => {
    // A rejection is passed on as it came (the work's, or the throw of `onTimeout` / `onAbort`).
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passed on as it came
    const fail = (error: unknown): void => reject(error);
    let done = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let unlisten: (() => void) | undefined;
    const end = (): boolean => {
      if (done) return false;
      done = true;
      if (timer !== undefined) clearTimeout(timer);
      unlisten?.();
      return true;
    };
    const endWith = (outcome: () => T): void => {
      if (!end()) return;
      try {
        resolve(outcome());
      } catch (error) {
        fail(error);
      }
    };
    if (timed) {
      timer = setTimeout(() => endWith(onTimeoutOf(options)), Math.max(0, ms));
      if (options.unref === true) timer.unref();
    }
    if (signal !== undefined) unlisten = listen(signal, (reason) => endWith(() => onAbortOf(options)(reason)));
    thenable.then(
      (value) => {
        if (end()) resolve(value);
      },
      (error: unknown) => {
        if (end()) fail(error);
      },
    );
  });
}

/** Registers `listener` for the source's abort; returns the removal. A plain signal gets one shared listener (see `call-signal.ts`). */
function listen(source: CancelSource, listener: (reason: unknown) => void): () => void {
  if ('onAbort' in source) return source.onAbort(listener);
  // Linked, not listened to: the caller's signal holds one listener however many wait on it.
  const link = linkCallSignal(source);
  link.onAbort(listener);
  return () => link.unlink();
}

function onTimeoutOf<T>(options: DeadlineOptions<T>): () => T {
  return (
    options.onTimeout ??
    (() => {
      throw new McpActorsError(
        ErrorCode.REQUEST_TIMEOUT,
        `${options.what ?? 'the wait'} got no answer within ${String(options.ms)} ms; raise timeoutMs if it is slow`,
        {
          details: { timeoutMs: options.ms },
        },
      );
    })
  );
}

function onAbortOf<T>(options: DeadlineOptions<T>): (reason: unknown) => T {
  return (
    options.onAbort ??
    ((reason) => {
      throw new McpActorsError(ErrorCode.CANCELLED, `${options.what ?? 'the wait'} was cancelled by the caller`, { cause: reason });
    })
  );
}

function settleWith<T>(outcome: () => T): Promise<T> {
  try {
    return Promise.resolve(outcome());
  } catch (error) {
    return rejected(error);
  }
}

function rejected<T>(error: unknown): Promise<T> {
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passed on as it came
  return Promise.reject(error);
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
