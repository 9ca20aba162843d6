/** A `ws` client standing in for the Stately inspector page: it keeps every byte it receives. */
import WebSocket from 'ws';
import { waitUntil } from './wait.js';

export interface ReceivedMessage {
  readonly type: string;
  readonly sessionId: string;
  readonly name?: string;
  readonly parentId?: string;
  readonly snapshot?: { readonly status?: string; readonly value?: unknown; readonly context?: unknown };
  readonly [field: string]: unknown;
}

export interface Viewer {
  readonly raw: string[];
  readonly messages: ReceivedMessage[];
  /** Resolves with the close code once the server ended the connection. */
  readonly closed: Promise<number>;
  /** The names of the actors announced so far (`@xstate.actor` messages). */
  actorNames(): string[];
  close(): void;
}

export async function connectViewer(url: string, options: WebSocket.ClientOptions = {}): Promise<Viewer> {
  const socket = new WebSocket(url, options);
  const raw: string[] = [];
  const messages: ReceivedMessage[] = [];
  socket.on('message', (data) => {
    // ws gives a Buffer by default; the other shapes of its RawData decoded alike.
    const text = Buffer.isBuffer(data)
      ? data.toString()
      : Array.isArray(data)
        ? Buffer.concat(data).toString()
        : Buffer.from(data).toString();
    raw.push(text);
    messages.push(JSON.parse(text) as ReceivedMessage);
  });
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    raw,
    messages,
    closed,
    actorNames: () => messages.filter((m) => m.type === '@xstate.actor').map((m) => String(m.name)),
    close: () => socket.close(),
  };
}

/** Waits until the viewer has an `@xstate.actor` message for each of `names`. */
export async function waitForActors(viewer: Viewer, names: readonly string[]): Promise<void> {
  await waitUntil(() => names.every((name) => viewer.actorNames().includes(name)), `actors ${names.join(', ')} in the viewer`);
}
