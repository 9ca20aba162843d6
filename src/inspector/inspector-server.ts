/**
 * The runtime's own inspector server: a WebSocket server on a loopback port that speaks the
 * `@statelyai/inspect` protocol, and at `/` the same bridge page the package's own server serves
 * (it embeds https://stately.ai/inspect and forwards the socket's messages to it).
 *
 * Why not the package's `createInspectorServer`: it listens on every interface, replays only its
 * last 200 messages to a late viewer (so it never sees the actors created before them), and its
 * `stop()` leaves connections open (the host then never exits). This one listens on 127.0.0.1,
 * gives a viewer that connects late the current tree (one `@xstate.actor` message per live actor,
 * with its snapshot as it is now), redacts every message, and `close()` ends every connection.
 *
 * Producers may connect too (the package's `createWebSocketInspector` pointed at this server):
 * their messages are redacted and relayed to every other connection, and their live actors are
 * part of the tree a late viewer gets.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { AnyActorRef, InspectionEvent, Observer } from 'xstate';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, messageOf as messageOfError } from '../errors/mcp-actors-error.js';
import { Redactor } from '../redaction/redactor.js';
import { bridgePage } from './bridge-page.js';
import { actorMessage, isMachineActor, messageOf, startedBy, wireText, type InspectorMessage } from './inspection-messages.js';

export interface InspectorServerOptions {
  /** The port to listen on (default 8080; 0 picks a free one). When taken, a free port is used instead. */
  readonly port?: number;
  /** Removes secrets from every message (default: one that knows none). */
  readonly redactor?: Redactor;
  /** Which actors are sent (default: those running a state machine; their steps show as states). */
  readonly include?: (actorRef: AnyActorRef) => boolean;
}

interface LiveActor {
  readonly ref: AnyActorRef;
  readonly rootId: string | undefined;
  /** Who started it: the `sourceRef` of its `xstate.init` event (see `startedBy`). */
  parentId: string | undefined;
}

interface RelayedActor {
  readonly actor: Record<string, unknown>;
  snapshot: unknown;
}

/** How long a viewer gets to answer a close before its socket is destroyed. */
const CLOSE_GRACE_MS = 500;

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, '127.0.0.1');
  });
}

export class InspectorServer {
  /** The page a browser opens: the Stately inspector, fed by this server. */
  readonly url: string;
  /** The WebSocket endpoint (viewers and producers connect here). */
  readonly wsUrl: string;
  readonly port: number;
  /** The XState observer that feeds the server: pass it as `inspect` to `createActor`. */
  readonly inspect: Observer<InspectionEvent>;

  readonly #http: Server;
  readonly #wss: WebSocketServer;
  readonly #redactor: Redactor;
  readonly #include: (actorRef: AnyActorRef) => boolean;
  readonly #live = new Map<string, LiveActor>();
  readonly #relayed = new Map<string, RelayedActor>();
  #queue: InspectionEvent[] = [];
  #flushTimer: NodeJS.Timeout | undefined;
  #closing: Promise<void> | undefined;

  /**
   * Starts a server and resolves once it listens.
   *
   * @example
   * const server = await InspectorServer.start({ port: 0 });
   * const actor = createActor(machine, { inspect: server.inspect }).start();
   * console.log(`Open ${server.url}`);
   * await server.close();
   */
  static async start(options: InspectorServerOptions = {}): Promise<InspectorServer> {
    const wanted = options.port ?? 8080;
    let portRef = 0;
    const http = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(bridgePage(portRef));
    });
    let port: number;
    try {
      port = await listen(http, wanted);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || wanted === 0) {
        throw new McpActorsError(
          ErrorCode.INVALID_ARGUMENT,
          `the inspector server could not listen on 127.0.0.1:${wanted}: ${messageOfError(error)}; pass another inspect: { port }`,
          { cause: error, details: { port: wanted } },
        );
      }
      port = await listen(http, 0);
    }
    portRef = port;
    return new InspectorServer(http, port, options);
  }

  private constructor(http: Server, port: number, options: InspectorServerOptions) {
    this.#http = http;
    this.port = port;
    this.url = `http://127.0.0.1:${port}`;
    this.wsUrl = `ws://127.0.0.1:${port}`;
    this.#redactor = options.redactor ?? new Redactor();
    this.#include = options.include ?? isMachineActor;
    this.#wss = new WebSocketServer({ server: http });
    this.#wss.on('connection', (socket) => this.#onConnection(socket));
    this.inspect = { next: (event) => this.#onInspection(event) };
  }

  /** How many viewers and producers are connected. */
  get connections(): number {
    return this.#wss.clients.size;
  }

  /** Stops listening and ends every connection; resolves once all are closed. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#flush();
      const sockets = [...this.#wss.clients];
      const closed = sockets.map((socket) =>
        socket.readyState === WebSocket.CLOSED ? Promise.resolve() : new Promise<void>((resolve) => socket.once('close', () => resolve())),
      );
      for (const socket of sockets) socket.close(1001, 'the runtime shut down');
      const grace = setTimeout(() => {
        for (const socket of sockets) socket.terminate();
      }, CLOSE_GRACE_MS);
      await Promise.all(closed);
      clearTimeout(grace);
      await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
      this.#http.closeAllConnections();
      await new Promise<void>((resolve) => this.#http.close(() => resolve()));
      this.#live.clear();
      this.#relayed.clear();
    })();
    return this.#closing;
  }

  #onInspection(event: InspectionEvent): void {
    if (this.#closing) return;
    if (event.type !== '@xstate.actor' && event.type !== '@xstate.event' && event.type !== '@xstate.snapshot') return;
    const ref = event.actorRef as AnyActorRef;
    if (event.type === '@xstate.actor') {
      if (!this.#include(ref)) return;
      this.#live.set(ref.sessionId, { ref, rootId: event.rootId, parentId: undefined });
    } else if (!this.#live.has(ref.sessionId)) {
      return;
    }
    const started = startedBy(event);
    if (started) this.#live.get(started.sessionId)!.parentId = started.parentId;
    if (this.#wss.clients.size > 0) {
      // Converted on the next turn, as the package does: an actor's first snapshot exists by then.
      this.#queue.push(event);
      this.#flushTimer ??= setTimeout(() => this.#flush(), 0);
    } else if (event.type === '@xstate.snapshot' && event.snapshot.status !== 'active') {
      this.#live.delete(ref.sessionId);
    }
  }

  readonly #parentOf = (sessionId: string): string | undefined => this.#live.get(sessionId)?.parentId;

  #flush(): void {
    if (this.#flushTimer) clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    const queue = this.#queue;
    this.#queue = [];
    for (const event of queue) {
      const message = messageOf(event, this.#parentOf);
      if (message) this.#broadcast(wireText(message, this.#redactor), undefined);
      if (event.type === '@xstate.snapshot' && event.snapshot.status !== 'active') this.#live.delete(event.actorRef.sessionId);
    }
  }

  #broadcast(text: string, from: WebSocket | undefined): void {
    for (const socket of this.#wss.clients) {
      if (socket !== from && socket.readyState === WebSocket.OPEN) socket.send(text);
    }
  }

  #onConnection(socket: WebSocket): void {
    if (this.#closing) {
      socket.terminate();
      return;
    }
    socket.on('error', () => socket.terminate());
    socket.on('message', (data) => this.#onProducerMessage(socket, data));
    // Everything queued so far goes out first, then this viewer gets the tree as it is now.
    this.#flush();
    for (const [sessionId, live] of this.#live) {
      if ((live.ref.getSnapshot() as { status?: string } | undefined)?.status !== 'active') {
        this.#live.delete(sessionId);
        continue;
      }
      socket.send(wireText(actorMessage(live.ref, live.rootId, live.parentId), this.#redactor));
    }
    for (const { actor, snapshot } of this.#relayed.values()) socket.send(wireText({ ...actor, snapshot }, this.#redactor));
  }

  /** A message from a producer (`createWebSocketInspector`): redacted, remembered, relayed. */
  #onProducerMessage(socket: WebSocket, data: RawData): void {
    let message: InspectorMessage;
    try {
      message = JSON.parse(data.toString()) as InspectorMessage;
    } catch {
      return; // not the protocol; ignore it
    }
    if (typeof message !== 'object' || message === null || typeof message.type !== 'string' || !message.type.startsWith('@xstate.')) return;
    const safe = this.#redactor.redact(message);
    if (safe.type === '@xstate.actor') {
      this.#relayed.set(safe.sessionId, { actor: safe, snapshot: safe.snapshot });
    } else if (safe.type === '@xstate.snapshot') {
      const known = this.#relayed.get(safe.sessionId);
      const status = (safe.snapshot as { status?: string } | undefined)?.status;
      if (known && status !== undefined && status !== 'active') this.#relayed.delete(safe.sessionId);
      else if (known) known.snapshot = safe.snapshot;
    }
    this.#broadcast(wireText(safe, this.#redactor), socket);
  }
}
