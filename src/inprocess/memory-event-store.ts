/**
 * The event store behind resumable SSE streams (SEP-1699): every message a session's streams
 * carry is kept with an id, so a client that lost a stream (or was told to poll, by the server
 * closing it) reconnects with `Last-Event-ID` and gets what it missed. In memory, one store a
 * session, bounded: the oldest events go first.
 */
import type { EventId, EventStore, StreamId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export class MemoryEventStore implements EventStore {
  readonly #events = new Map<EventId, { readonly streamId: StreamId; readonly message: JSONRPCMessage }>();
  readonly #maxEvents: number;
  #sequence = 0;

  /** `maxEvents`: how many events are kept for replay (default 1,000). */
  constructor(maxEvents = 1_000) {
    this.#maxEvents = Math.max(1, Math.floor(maxEvents));
  }

  get size(): number {
    return this.#events.size;
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const eventId = `${streamId}_${(++this.#sequence).toString(36)}`;
    this.#events.set(eventId, { streamId, message });
    for (const oldest of this.#events.keys()) {
      if (this.#events.size <= this.#maxEvents) break;
      this.#events.delete(oldest);
    }
    return eventId;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.#events.get(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const last = this.#events.get(lastEventId);
    if (last === undefined) throw new Error(`event ${JSON.stringify(lastEventId)} is unknown or too old to replay`);
    let after = false;
    // A snapshot: events stored while replaying go to the live stream, not into this loop.
    for (const [eventId, event] of [...this.#events]) {
      if (!after) {
        after = eventId === lastEventId;
        continue;
      }
      // Priming events are empty: they carry an id for the cursor, nothing to replay.
      if (event.streamId === last.streamId && Object.keys(event.message).length > 0) await send(eventId, event.message);
    }
    return last.streamId;
  }
}
