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
