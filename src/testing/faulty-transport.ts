/**
 * `faultyTransport`: wraps any MCP `Transport` to drop, delay, duplicate, reorder or corrupt
 * messages and to disconnect after N, driven by a seed so a failing run replays exactly. The seed
 * is printed (to stderr, or your `log`) when the wrapper is made.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export type FaultMode = 'drop' | 'delay' | 'duplicate' | 'reorder' | 'corrupt';

export interface FaultPlan {
  /** Same seed, same faults on the same messages. Default: a random one (printed). */
  readonly seed?: number;
  /** Chance, per message, of each fault (0-1; checked in this order, at most one per message). */
  readonly drop?: number;
  readonly corrupt?: number;
  readonly duplicate?: number;
  readonly reorder?: number;
  readonly delay?: number;
  /** How long a delayed message waits, in ms (default 50). */
  readonly delayMs?: number;
  /** The first this many messages (both ways) pass untouched: 3 spares the MCP handshake. Default 0. */
  readonly spare?: number;
  /** After this many messages (both ways), the connection is closed. */
  readonly disconnectAfter?: number;
  /** Which way faults apply (default both). */
  readonly direction?: 'send' | 'receive' | 'both';
  /** Where the seed line goes (default `console.error`). */
  readonly log?: (line: string) => void;
}

export interface FaultyTransport extends Transport {
  readonly seed: number;
  /** How many messages met each fault so far, and how many went through untouched. */
  readonly stats: Readonly<Record<FaultMode | 'passed' | 'disconnected', number>>;
}

/** A small seeded PRNG (mulberry32): uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * @example
 * const transport = faultyTransport(new StdioProcessTransport(options), { seed: 42, drop: 0.1, delay: 0.2 });
 * await client.connect(transport); // stderr: "faultyTransport: seed 42 ..."
 */
export function faultyTransport(inner: Transport, plan: FaultPlan = {}): FaultyTransport {
  const seed = plan.seed ?? Math.floor(Math.random() * 2 ** 32);
  (plan.log ?? ((line: string) => console.error(line)))(`faultyTransport: seed ${seed} (pass { seed: ${seed} } to replay these faults)`);
  const random = seededRandom(seed);
  const stats = { drop: 0, delay: 0, duplicate: 0, reorder: 0, corrupt: 0, passed: 0, disconnected: 0 };
  const direction = plan.direction ?? 'both';
  let seen = 0;
  let disconnected = false;
  const held: { send?: () => void; receive?: () => void } = {};
  const timers = new Set<NodeJS.Timeout>();

  const later = (ms: number, run: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };

  const fate = (way: 'send' | 'receive'): FaultMode | 'passed' => {
    if (direction !== 'both' && direction !== way) return 'passed';
    const roll = random();
    let edge = 0;
    for (const mode of ['drop', 'corrupt', 'duplicate', 'reorder', 'delay'] as const) {
      edge += plan[mode] ?? 0;
      if (roll < edge) return mode;
    }
    return 'passed';
  };

  const apply = (way: 'send' | 'receive', message: JSONRPCMessage, deliver: (message: JSONRPCMessage) => void): void => {
    if (disconnected) return;
    seen += 1;
    if (plan.disconnectAfter !== undefined && seen > plan.disconnectAfter) {
      disconnected = true;
      stats.disconnected += 1;
      void inner.close().catch(() => undefined);
      return;
    }
    const mode = seen <= (plan.spare ?? 0) ? 'passed' : fate(way);
    stats[mode] += 1;
    const release = held[way];
    held[way] = undefined;
    switch (mode) {
      case 'drop':
        break;
      case 'corrupt':
        deliver(corrupted(message));
        break;
      case 'duplicate':
        deliver(message);
        deliver(message);
        break;
      case 'reorder':
        // Held back until the next message this way has gone (or 50 ms, if none comes).
        held[way] = () => deliver(message);
        later(50, () => {
          const run = held[way];
          if (run) {
            held[way] = undefined;
            run();
          }
        });
        break;
      case 'delay':
        later(plan.delayMs ?? 50, () => deliver(message));
        break;
      case 'passed':
        deliver(message);
        break;
    }
    // The message held back before this one goes now, after it (two held in a row: the older first).
    release?.();
  };

  const wrapper: FaultyTransport = {
    seed,
    stats,
    start: () => inner.start(),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await inner.close();
    },
    send: (message: JSONRPCMessage, options?: TransportSendOptions) =>
      new Promise<void>((resolve, reject) => {
        let sent = false;
        apply('send', message, (m) => {
          if (sent) {
            void inner.send(m, options).catch(() => undefined);
            return;
          }
          sent = true;
          inner.send(m, options).then(resolve, reject);
        });
        // A dropped, held or delayed message is "sent" as far as the caller knows.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- apply() may have set `sent` (in the callback, synchronously); TypeScript does not see a callback's assignment
        if (!sent) resolve();
      }),
    setProtocolVersion: (version: string) => inner.setProtocolVersion?.(version),
  };
  Object.defineProperty(wrapper, 'sessionId', { get: () => inner.sessionId });
  inner.onmessage = (message, extra) => apply('receive', message, (m) => wrapper.onmessage?.(m, extra));
  inner.onclose = () => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    wrapper.onclose?.();
  };
  inner.onerror = (error) => wrapper.onerror?.(error);
  return wrapper;
}

/** A message the peer cannot match: a response's id changed, a request's method renamed. */
function corrupted(message: JSONRPCMessage): JSONRPCMessage {
  if ('id' in message && ('result' in message || 'error' in message)) return { ...message, id: `corrupted-${String(message.id)}` };
  if ('method' in message) return { ...message, method: `corrupted/${message.method}` };
  return message;
}
