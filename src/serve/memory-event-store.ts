/**
 * The event store behind resumable SSE streams (SEP-1699): every message a session's streams
 * carry is kept with an id, so a client that lost a stream (or was told to poll, by the server
 * closing it) reconnects with `Last-Event-ID` and gets what it missed. In memory, one store a
 * session, bounded in events and in bytes: the oldest events go first, so a client sending many
 * calls with big answers cannot make the server hold more than `maxBytes` for its session.
 */
import type { EventId, EventStore, StreamId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface MemoryEventStoreOptions {
  /** How many events are kept for replay; default 1,000. */
  readonly maxEvents?: number;
  /** How many bytes of messages (as JSON, UTF-8) are kept for replay; default 1 MiB. */
  readonly maxBytes?: number;
}

export const DEFAULT_MAX_EVENTS = 1_000;
export const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;

interface StoredEvent {
  readonly streamId: StreamId;
  /** Undefined for an event larger than the whole budget: its id is known, its message was not kept. */
  readonly message: JSONRPCMessage | undefined;
  readonly bytes: number;
}

export class MemoryEventStore implements EventStore {
  readonly #events = new Map<EventId, StoredEvent>();
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  #bytes = 0;
  #sequence = 0;

  /**
   * `maxEvents` (or `{ maxEvents, maxBytes }`): what is kept for replay. An event larger than
   * `maxBytes` by itself is sent but not kept: every older event is forgotten with it, so a
   * replay from before it fails loudly instead of skipping it.
   *
   * @example
   * const store = new MemoryEventStore({ maxEvents: 500, maxBytes: 256 * 1024 });
   */
  constructor(limits: number | MemoryEventStoreOptions = {}) {
    const { maxEvents = DEFAULT_MAX_EVENTS, maxBytes = DEFAULT_MAX_EVENT_BYTES } =
      typeof limits === 'number' ? { maxEvents: limits } : limits;
    this.#maxEvents = Math.max(1, Math.floor(maxEvents));
    this.#maxBytes = Math.max(1, Math.floor(maxBytes));
  }

  /** Events kept now (including those whose message was too big to keep). */
  get size(): number {
    return this.#events.size;
  }

  /** Bytes of messages kept now; never more than `maxBytes`. */
  get retainedBytes(): number {
    return this.#bytes;
  }

  storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    // An executor: what it throws (a message JSON cannot write) is the rejection.
    return new Promise((resolve) => resolve(this.#store(streamId, message)));
  }

  #store(streamId: StreamId, message: JSONRPCMessage): EventId {
    const eventId = `${streamId}_${(++this.#sequence).toString(36)}`;
    const bytes = Buffer.byteLength(JSON.stringify(message), 'utf8');
    const kept = bytes <= this.#maxBytes;
    const event: StoredEvent = kept ? { streamId, message, bytes } : { streamId, message: undefined, bytes: 0 };
    if (!kept) this.#forgetAll();
    for (const [oldest, old] of this.#events) {
      if (this.#events.size < this.#maxEvents && this.#bytes + event.bytes <= this.#maxBytes) break;
      this.#events.delete(oldest);
      this.#bytes -= old.bytes;
    }
    this.#events.set(eventId, event);
    this.#bytes += event.bytes;
    return eventId;
  }

  getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return Promise.resolve(this.#events.get(eventId)?.streamId);
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const last = this.#events.get(lastEventId);
    if (last === undefined) throw new Error(`event ${JSON.stringify(lastEventId)} is unknown or too old to replay`);
    let after = false;
    // A snapshot: events stored while replaying go to the live stream, not into this loop.
    for (const [eventId, event] of [...this.#events]) {
      if (!after) {
        after = eventId === lastEventId;
        continue;
      }
      if (event.streamId !== last.streamId) continue;
      // The first event kept after the cursor is too big to have been kept: replaying past it would hide a gap.
      if (event.message === undefined)
        throw new Error(`event ${JSON.stringify(eventId)} was larger than this store keeps; it cannot be replayed`);
      // Priming events are empty: they carry an id for the cursor, nothing to replay.
      if (Object.keys(event.message).length > 0) await send(eventId, event.message);
    }
    return last.streamId;
  }

  #forgetAll(): void {
    this.#events.clear();
    this.#bytes = 0;
  }
}
