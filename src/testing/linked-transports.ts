/**
 * A linked pair of MCP transports in one process (like the SDK's `InMemoryTransport`), with the
 * hooks the in-process fixture needs to misbehave: what one end lets in, what it puts out, raw
 * deliveries that are not JSON-RPC, a client end whose `close()` never finishes, and an `end()`
 * that closes both ends whatever they ignore. Deliveries are asynchronous (a microtask), as across
 * a pipe.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface LinkedEnd extends Transport {
  /** Called once, when this end is started (before queued messages are handed over). */
  onstart?: () => void;
  /** Called once, when this end has ended. */
  onended?: () => void;
  /** Messages arriving at this end for which this returns false are never read. */
  filterIncoming?: (message: JSONRPCMessage) => boolean;
  /** What actually goes out for each message sent from this end (none, one, several). */
  rewriteOutgoing?: (message: JSONRPCMessage) => JSONRPCMessage[];
  /** Hands anything to the other end as a message, as a broken peer would. */
  deliver(message: JSONRPCMessage): void;
  /** Closes both ends now. Idempotent. */
  end(): void;
}

class End implements LinkedEnd {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  onstart?: () => void;
  onended?: () => void;
  filterIncoming?: (message: JSONRPCMessage) => boolean;
  rewriteOutgoing?: (message: JSONRPCMessage) => JSONRPCMessage[];
  peer!: End;
  private open = true;
  private started = false;
  private readonly queue: JSONRPCMessage[] = [];

  constructor(private readonly ignoreClose: boolean) {}

  // Both settle at once; what a hook throws rejects them (the executor's throw), as from an async function.
  start(): Promise<void> {
    return new Promise<void>((resolve) => {
      if (!this.started) {
        this.started = true;
        this.onstart?.();
        while (this.open) {
          const next = this.queue.shift();
          if (next === undefined) break;
          this.onmessage?.(next);
        }
      }
      resolve();
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise<void>((resolve) => {
      if (!this.open) throw new Error('Not connected');
      for (const out of this.rewriteOutgoing ? this.rewriteOutgoing(message) : [message]) this.deliver(out);
      resolve();
    });
  }

  deliver(message: JSONRPCMessage): void {
    const peer = this.peer;
    queueMicrotask(() => peer.receive(message));
  }

  private receive(message: JSONRPCMessage): void {
    if (!this.open) return;
    if (this.filterIncoming && !this.filterIncoming(message)) return;
    if (!this.started || !this.onmessage) this.queue.push(message);
    else this.onmessage(message);
  }

  close(): Promise<void> {
    // A server that ignores being asked to stop: only `end()` (the fixture's dispose) ends it.
    if (this.ignoreClose) return new Promise<void>(() => undefined);
    this.end();
    return Promise.resolve();
  }

  end(): void {
    if (!this.open) return;
    this.open = false;
    this.queue.length = 0;
    this.onclose?.();
    this.onended?.();
    this.peer.end();
  }
}

/** `[client, server]`: what one end sends, the other receives. With `ignoreClose`, the client end's `close()` never finishes. */
export function linkedTransports(options: { ignoreClose?: boolean } = {}): [client: LinkedEnd, server: LinkedEnd] {
  const client = new End(options.ignoreClose === true);
  const server = new End(false);
  client.peer = server;
  server.peer = client;
  return [client, server];
}
