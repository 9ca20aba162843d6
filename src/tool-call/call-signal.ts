/**
 * A signal of one call's own, linked to longer-lived signals (an actor's lifetime, a caller's) and
 * unlinked when the call settles.
 *
 * Why not hand the long-lived signal down: the MCP SDK's `Protocol.request` adds an `abort`
 * listener to the signal it is given and never removes it, so a signal shared by every call
 * collects one listener per call ever made (about 1 KiB each) and, when it finally aborts, sends a
 * `notifications/cancelled` for every one of them, settled or not. Why not `AbortSignal.any`: on
 * Node 20 it keeps an internal entry per derived signal for as long as the source lives (200k calls:
 * +11 MiB after gc), while no listener count shows it.
 *
 * A call signal is never aborted once the call has settled: `unlink()` only detaches it, so the
 * SDK's listener on it is dropped with it and nothing is cancelled on the wire.
 */
export interface CallSignal {
  /** The call's own signal: aborted when any linked signal aborts before `unlink()`. */
  readonly signal: AbortSignal;
  /** Detaches from the linked signals; call it once the call has settled. Idempotent. */
  unlink(): void;
}

const NOTHING_TO_UNLINK = (): void => undefined;

/**
 * The signals `CallSet.open()` made: each belongs to exactly one call and is never aborted once
 * that call has settled, so a layer below (`McpClient.callTool`) may hand it to the SDK as it is
 * instead of linking a signal of its own to it (an AbortController costs microseconds).
 */
const callScoped = new WeakSet<AbortSignal>();

/** Whether `signal` is one call's own (made by `CallSet.open()`): safe to give the SDK directly. */
export function isCallScoped(signal: AbortSignal): boolean {
  return callScoped.has(signal);
}

/**
 * @example
 * const call = linkCallSignal(actorLifetime, options.signal);
 * try { return await client.callTool(params, undefined, { signal: call.signal }); }
 * finally { call.unlink(); }
 */
export function linkCallSignal(...sources: readonly (AbortSignal | undefined)[]): CallSignal {
  const controller = new AbortController();
  const linked: AbortSignal[] = [];
  const onAbort = function (this: AbortSignal): void {
    unlink();
    controller.abort(this.reason);
  };
  const unlink = (): void => {
    for (const source of linked.splice(0)) source.removeEventListener('abort', onAbort);
  };
  for (const source of sources) {
    if (source === undefined) continue;
    if (source.aborted) {
      unlink();
      controller.abort(source.reason);
      return { signal: controller.signal, unlink: NOTHING_TO_UNLINK };
    }
    source.addEventListener('abort', onAbort, { once: true });
    linked.push(source);
  }
  return { signal: controller.signal, unlink: linked.length === 0 ? NOTHING_TO_UNLINK : unlink };
}

/**
 * The signals of the calls in flight of one owner (an actor), cancelled together by
 * `cancelAll()` without the owner keeping a long-lived signal that every call listens to: under
 * 16 calls in flight such a signal holds 16 listeners (and Node warns past ten), and each
 * listener is one more thing a call must remember to remove.
 *
 * @example
 * const calls = new CallSet();
 * const call = calls.open(options.signal);
 * try { return await run(call.signal); } finally { call.unlink(); }
 * // elsewhere, at shutdown:
 * calls.cancelAll(new Error('shutting down'));
 */
export class CallSet {
  readonly #open = new Set<AbortController>();
  #cancelled: { reason: unknown } | undefined;

  /** A signal for one call, aborted by the caller's `signal` or by `cancelAll()` until unlinked. */
  open(signal?: AbortSignal): CallSignal {
    const controller = new AbortController();
    if (this.#cancelled) {
      controller.abort(this.#cancelled.reason);
      return { signal: controller.signal, unlink: NOTHING_TO_UNLINK };
    }
    const caller = signal === undefined ? undefined : linkTo(controller, signal);
    this.#open.add(controller);
    callScoped.add(controller.signal);
    return {
      signal: controller.signal,
      unlink: () => {
        this.#open.delete(controller);
        caller?.();
      },
    };
  }

  /** Aborts every call open now, and every call opened from now on. */
  cancelAll(reason: unknown): void {
    this.#cancelled ??= { reason };
    for (const controller of this.#open) controller.abort(reason);
    this.#open.clear();
  }

  /** How many calls are open (for tests and status). */
  get size(): number {
    return this.#open.size;
  }
}

/** Aborts `controller` when `source` aborts; returns the unlink. */
function linkTo(controller: AbortController, source: AbortSignal): () => void {
  if (source.aborted) {
    controller.abort(source.reason);
    return NOTHING_TO_UNLINK;
  }
  const onAbort = (): void => controller.abort(source.reason);
  source.addEventListener('abort', onAbort, { once: true });
  return () => source.removeEventListener('abort', onAbort);
}
