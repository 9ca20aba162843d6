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
 * Why lazy: an `AbortController` costs about a microsecond to make and more to collect, which is a
 * third of an in-process read call. A call's `AbortSignal` is made only when someone reads
 * `signal` (a tool reading `ctx.signal`); the call path itself asks `aborted` and registers with
 * `onAbort`, and the MCP client hands the SDK `requestSignal` (the call itself), none of which
 * touch an `EventTarget`.
 *
 * A call signal is never aborted once the call has settled: `unlink()` only detaches it, so the
 * SDK's listener on it is dropped with it and nothing is cancelled on the wire.
 */
export interface CallSignal {
  /** The call's own `AbortSignal`, made on first read: aborted when the call is cancelled before `unlink()`. */
  readonly signal: AbortSignal;
  /** Whether the call was cancelled (without making the `AbortSignal`). */
  readonly aborted: boolean;
  /** Why it was cancelled, once `aborted`. */
  readonly reason: unknown;
  /** Calls `listener` once when the call is cancelled; returns the removal. No `EventTarget` is involved. */
  onAbort(listener: (reason: unknown) => void): () => void;
  /**
   * The call as the MCP SDK's request signal, without an `AbortController` (see
   * `LinkedCallSignal.requestSignal`): for `Protocol.request` only, never for code that expects a
   * real `EventTarget`.
   */
  readonly requestSignal: AbortSignal;
  /** Detaches from the linked signals; call it once the call has settled. Idempotent. */
  unlink(): void;
}

const NOTHING = (): void => undefined;

type AbortListener = ((event: Event) => void) | { handleEvent(event: Event): void };

/** Listeners kept without an array for the first one. */
type Listeners<T> = T | T[] | undefined;
const added = <T>(listeners: Listeners<T>, listener: T): Listeners<T> =>
  listeners === undefined ? listener : Array.isArray(listeners) ? (listeners.push(listener), listeners) : [listeners, listener];
function removed<T>(listeners: Listeners<T>, listener: T): Listeners<T> {
  if (listeners === listener) return undefined;
  if (!Array.isArray(listeners)) return listeners;
  const at = listeners.indexOf(listener);
  if (at >= 0) listeners.splice(at, 1);
  return listeners;
}
const NONE: readonly never[] = [];
const listed = <T>(listeners: Listeners<T>): readonly T[] =>
  listeners === undefined ? NONE : Array.isArray(listeners) ? listeners : [listeners];

/**
 * The signals a `LinkedCallSignal` made (`CallSet.open()`'s calls): each belongs to exactly one call and is never aborted once
 * that call has settled, so a layer below (`McpClient.callTool`) may hand it to the SDK as it is
 * instead of linking a signal of its own to it (an AbortController costs microseconds).
 */
const callScoped = new WeakSet<AbortSignal>();

/** Whether `signal` is one call's own (made by `CallSet.open()`): safe to give the SDK directly. */
export function isCallScoped(signal: AbortSignal): boolean {
  return callScoped.has(signal);
}

/**
 * The calls following each long-lived source signal. A source gets ONE `abort` listener however
 * many calls follow it (16 calls in flight on one caller's signal would otherwise hold 16
 * listeners, and Node warns past ten); the listener goes when the last follower unlinks.
 */
const followers = new WeakMap<AbortSignal, { readonly calls: Set<LinkedCallSignal>; readonly onAbort: () => void }>();

function follow(source: AbortSignal, call: LinkedCallSignal): void {
  let entry = followers.get(source);
  if (entry === undefined) {
    const calls = new Set<LinkedCallSignal>();
    const onAbort = (): void => {
      followers.delete(source);
      for (const follower of [...calls]) follower.abort(source.reason);
    };
    entry = { calls, onAbort };
    followers.set(source, entry);
    source.addEventListener('abort', onAbort, { once: true });
  }
  entry.calls.add(call);
}

function unfollow(source: AbortSignal, call: LinkedCallSignal): void {
  const entry = followers.get(source);
  if (entry === undefined || !entry.calls.delete(call) || entry.calls.size > 0) return;
  followers.delete(source);
  source.removeEventListener('abort', entry.onAbort);
}

/** One call's signal: aborted by `abort()` or by a linked source, until unlinked. */
export class LinkedCallSignal implements CallSignal {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown = undefined;
  #unlinked = false;
  // One listener is the common case: kept as it is, an array only from the second on (an empty
  // array's first push reserves room for seventeen).
  #listeners: Listeners<(reason: unknown) => void>;
  #sources: AbortSignal[] | undefined;
  #onUnlink: ((call: LinkedCallSignal) => void) | undefined;
  #unlistenParent: (() => void) | undefined;
  #dom: Listeners<AbortListener>;

  constructor(sources: readonly (AbortSignal | undefined)[] = [], onUnlink?: (call: LinkedCallSignal) => void) {
    this.#onUnlink = onUnlink;
    for (const source of sources) {
      if (source === undefined) continue;
      if (source.aborted) {
        this.abort(source.reason);
        return;
      }
      follow(source, this);
      (this.#sources ??= []).push(source);
    }
  }

  /** A signal aborted with `parent` (and on its own by `abort()`), linked through `onAbort`: no EventTarget. */
  static within(parent: CallSignal): LinkedCallSignal {
    const child = new LinkedCallSignal();
    if (parent.aborted) child.abort(parent.reason);
    else child.#unlistenParent = parent.onAbort((reason) => child.abort(reason));
    return child;
  }

  get signal(): AbortSignal {
    let controller = this.#controller;
    if (controller === undefined) {
      controller = new AbortController();
      this.#controller = controller;
      callScoped.add(controller.signal);
      if (this.#aborted) controller.abort(this.#reason);
    }
    return controller.signal;
  }

  /**
   * What the MCP SDK (1.32) reads of a request's signal, and nothing more: `aborted`, `reason`,
   * `throwIfAborted()` and one `abort` listener (`Protocol.request`, `shared/protocol.js`). Handing
   * the SDK a real `AbortSignal` costs an `AbortController` and an `EventTarget` listener per call,
   * made and collected: about 8 µs of host CPU a call over stdio, a fifth of a raw SDK call. This
   * call is that signal itself (the members below): the SDK's never-removed listener goes with the
   * call once it settles, and a settled call is never cancelled on the wire.
   * `test/integration/call-signals.test.ts` holds the SDK to it: a cancel or a timeout in flight
   * still reaches the server, once.
   */
  get requestSignal(): AbortSignal {
    return this;
  }

  /** For the SDK (see `requestSignal`). */
  onabort: ((event: Event) => void) | null = null;

  /** For the SDK (see `requestSignal`). */
  throwIfAborted(): void {
    if (this.#aborted) throw this.#reason;
  }

  /** For the SDK (see `requestSignal`): `abort` listeners, dropped at `unlink()`. */
  addEventListener(type: string, listener: AbortListener | null): void {
    if (type !== 'abort' || listener === null || this.#aborted || this.#unlinked) return;
    this.#dom = added(this.#dom, listener);
  }

  /** For the SDK (see `requestSignal`). */
  removeEventListener(type: string, listener: AbortListener | null): void {
    if (type === 'abort' && listener !== null) this.#dom = removed(this.#dom, listener);
  }

  /** For the SDK (see `requestSignal`): the signal is aborted only through `abort()`. */
  dispatchEvent(): boolean {
    return true;
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.#aborted || this.#unlinked) return NOTHING;
    this.#listeners = added(this.#listeners, listener);
    return () => {
      this.#listeners = removed(this.#listeners, listener);
    };
  }

  /** Cancels the call (once; nothing after `unlink()`). */
  abort(reason: unknown): void {
    if (this.#aborted || this.#unlinked) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#detach();
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    for (const listener of listed(listeners)) listener(reason);
    const dom = this.#dom;
    this.#dom = undefined;
    if (dom === undefined && this.onabort === null) return;
    const event = new Event('abort');
    this.onabort?.call(this, event);
    for (const listener of listed(dom)) {
      if (typeof listener === 'function') listener.call(this, event);
      else listener.handleEvent(event);
    }
  }

  unlink(): void {
    if (this.#unlinked) return;
    this.#unlinked = true;
    this.#listeners = undefined;
    this.#dom = undefined;
    this.onabort = null;
    this.#detach();
    const onUnlink = this.#onUnlink;
    this.#onUnlink = undefined;
    onUnlink?.(this);
  }

  #detach(): void {
    const unlistenParent = this.#unlistenParent;
    if (unlistenParent !== undefined) {
      this.#unlistenParent = undefined;
      unlistenParent();
    }
    const sources = this.#sources;
    if (sources === undefined) return;
    this.#sources = undefined;
    for (const source of sources) unfollow(source, this);
  }
}

/**
 * @example
 * const call = linkCallSignal(actorLifetime, options.signal);
 * try { return await client.callTool(params, undefined, { signal: call.signal }); }
 * finally { call.unlink(); }
 */
export function linkCallSignal(...sources: readonly (AbortSignal | undefined)[]): CallSignal {
  return new LinkedCallSignal(sources);
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
 * try { return await run(call); } finally { call.unlink(); }
 * // elsewhere, at shutdown:
 * calls.cancelAll(new Error('shutting down'));
 */
export class CallSet {
  readonly #open = new Set<LinkedCallSignal>();
  #cancelled: { reason: unknown } | undefined;
  readonly #forget = (call: LinkedCallSignal): void => void this.#open.delete(call);

  /** A signal for one call, aborted by the caller's `signal` or by `cancelAll()` until unlinked. */
  open(signal?: AbortSignal): CallSignal {
    const call = new LinkedCallSignal(signal === undefined ? [] : [signal], this.#forget);
    if (this.#cancelled) call.abort(this.#cancelled.reason);
    else if (!call.aborted) this.#open.add(call);
    return call;
  }

  /** Aborts every call open now, and every call opened from now on. */
  cancelAll(reason: unknown): void {
    this.#cancelled ??= { reason };
    const open = [...this.#open];
    this.#open.clear();
    for (const call of open) call.abort(reason);
  }

  /** How many calls are open (for tests and status). */
  get size(): number {
    return this.#open.size;
  }
}
