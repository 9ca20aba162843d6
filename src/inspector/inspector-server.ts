/**
 * The runtime's own inspector server, on a loopback port: at `/` the runtime's own page (works
 * offline: the live tree, each actor's state, its last events and its statechart), at `/stately`
 * the bridge that embeds https://stately.ai/inspect, and a WebSocket that speaks the
 * `@statelyai/inspect` protocol.
 *
 * Why not the package's `createInspectorServer`: it listens on every interface, replays only its
 * last 200 messages to a late viewer (so it never sees the actors created before them), and its
 * `stop()` leaves connections open (the host then never exits). This one listens on 127.0.0.1,
 * gives a viewer that connects late the current tree (one `@xstate.actor` message per live actor,
 * with its snapshot as it is now), redacts every message, and `close()` ends every connection.
 *
 * Who may connect is decided by `accessOf` (loopback `Host` only; an `Origin` must be the page's
 * own; viewers are read-only; producers present the run's `token`). Producers are other processes'
 * XState inspection clients (`createWebSocketInspector({ url: server.producerUrl })`): their
 * messages are size-capped, redacted, relayed to the viewers, and their live actors (bounded in
 * bytes, forgotten when the producer leaves) are part of the tree a late viewer gets.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { AnyActorRef, InspectionEvent, Observer } from 'xstate';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, messageOf as messageOfError } from '../errors/mcp-actors-error.js';
import { Redactor } from '../redaction/redactor.js';
import { bridgePage } from './bridge-page.js';
import { accessOf, type InspectorAccess } from './inspector-access.js';
import { inspectorLimits, type InspectorLimits } from './inspector-limits.js';
import { inspectorPage } from './inspector-page.js';
import { actorMessage, isMachineActor, messageOf, startedBy, wireText, type InspectorMessage } from './inspection-messages.js';
import { withoutToolResults } from './tool-result-stripping.js';

export interface InspectorServerOptions {
  /** The port to listen on (default 8080; 0 picks a free one). When taken, a free port is used instead. */
  readonly port?: number;
  /** Removes secrets from every message (default: one that knows none). */
  readonly redactor?: Redactor;
  /** Which actors are sent (default: those running a state machine; their steps show as states). */
  readonly include?: (actorRef: AnyActorRef) => boolean;
  /** Bounds on connections and bytes (see `InspectorLimits`; defaults in `DEFAULT_INSPECTOR_LIMITS`). */
  readonly limits?: Partial<InspectorLimits>;
  /**
   * Let the Stately bridge (`/stately`, which forwards to stately.ai) see tool results' content
   * (default false: every result's content is withheld from it).
   */
  readonly shareToolResults?: boolean;
}

interface LiveActor {
  readonly ref: AnyActorRef;
  readonly rootId: string | undefined;
  /** Who started it: the `sourceRef` of its `xstate.init` event (see `startedBy`). */
  parentId: string | undefined;
}

interface RelayedActor {
  readonly producer: WebSocket;
  readonly actor: Record<string, unknown>;
  snapshot: unknown;
  /** What it is counted as against `maxRetainedBytes`: the bytes its messages arrived in. */
  readonly actorBytes: number;
  snapshotBytes: number;
}

interface Connection {
  readonly access: Exclude<InspectorAccess, { kind: 'refused' }>;
  /** Bytes a producer has sent so far. */
  received: number;
}

/** How long a viewer gets to answer a close before its socket is destroyed. */
const CLOSE_GRACE_MS = 500;

/** WebSocket close codes (RFC 6455). */
const POLICY_VIOLATION = 1008;

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

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  const text =
    status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : status === 421 ? 'Misdirected Request' : 'Service Unavailable';
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(reason)}\r\n\r\n${reason}`,
  );
}

export class InspectorServer {
  /** The page a browser opens: the runtime's own inspector page (it also links to the Stately inspector). */
  readonly url: string;
  /** The WebSocket endpoint for viewers (read-only). */
  readonly wsUrl: string;
  /**
   * The WebSocket endpoint for producers, with this run's token: give it to another process's
   * `createWebSocketInspector({ url })`. Keep it private: whoever has it can add actors to the view.
   */
  readonly producerUrl: string;
  /** This run's producer token (random, 32 hex digits); it is never sent to a viewer. */
  readonly token: string;
  readonly port: number;
  /** The XState observer that feeds the server: pass it as `inspect` to `createActor`. */
  readonly inspect: Observer<InspectionEvent>;
  readonly limits: InspectorLimits;

  readonly #http: Server;
  readonly #wss: WebSocketServer;
  readonly #redactor: Redactor;
  readonly #include: (actorRef: AnyActorRef) => boolean;
  readonly #shareToolResults: boolean;
  readonly #live = new Map<string, LiveActor>();
  readonly #relayed = new Map<string, RelayedActor>();
  readonly #connections = new Map<WebSocket, Connection>();
  #retainedBytes = 0;
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
    // Set once the server exists, right after it listens.
    let handler: ((request: IncomingMessage, response: ServerResponse) => void) | undefined = undefined;
    const http = createServer((request, response) => handler?.(request, response));
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
    const server = new InspectorServer(http, port, options);
    handler = (request, response) => server.#onRequest(request, response);
    return server;
  }

  private constructor(http: Server, port: number, options: InspectorServerOptions) {
    this.#http = http;
    this.port = port;
    this.limits = inspectorLimits(options.limits);
    this.token = randomBytes(16).toString('hex');
    this.url = `http://127.0.0.1:${port}`;
    this.wsUrl = `ws://127.0.0.1:${port}`;
    this.producerUrl = `ws://127.0.0.1:${port}/?token=${this.token}`;
    this.#redactor = options.redactor ?? new Redactor();
    this.#include = options.include ?? isMachineActor;
    this.#shareToolResults = options.shareToolResults === true;
    http.maxConnections = this.limits.maxConnections * 2;
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: this.limits.maxMessageBytes, perMessageDeflate: false });
    http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => this.#onUpgrade(request, socket, head));
    this.inspect = { next: (event) => this.#onInspection(event) };
  }

  /** How many viewers and producers are connected. */
  get connections(): number {
    return this.#connections.size;
  }

  /** Bytes of producers' actors kept for late viewers (at most `limits.maxRetainedBytes`). */
  get retainedBytes(): number {
    return this.#retainedBytes;
  }

  /** Stops listening and ends every connection; resolves once all are closed. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#flush();
      const sockets = [...this.#connections.keys()];
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
      this.#retainedBytes = 0;
    })();
    return this.#closing;
  }

  #onRequest(request: IncomingMessage, response: ServerResponse): void {
    const access = accessOf(request, this.port, this.token);
    if (access.kind === 'refused') {
      response.writeHead(access.status, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(access.reason);
      return;
    }
    const path = new URL(request.url ?? '/', 'http://inspector.invalid').pathname;
    const page = path === '/' ? inspectorPage() : path === '/stately' ? bridgePage() : undefined;
    if (request.method !== 'GET' || page === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('not found: the inspector serves / and /stately');
      return;
    }
    response.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': page.csp,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
    response.end(page.html);
  }

  #onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    if (this.#closing) {
      socket.destroy();
      return;
    }
    const access = accessOf(request, this.port, this.token);
    if (access.kind === 'refused') {
      refuseUpgrade(socket, access.status, access.reason);
      return;
    }
    if (this.#connections.size >= this.limits.maxConnections) {
      refuseUpgrade(socket, 503, `the inspector takes at most ${this.limits.maxConnections} connections`);
      return;
    }
    this.#wss.handleUpgrade(request, socket, head, (ws) => this.#onConnection(ws, access));
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
    const startedEntry = started && this.#live.get(started.sessionId);
    if (started && startedEntry) startedEntry.parentId = started.parentId;
    if (this.#connections.size > 0) {
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

  /** The text for one viewer: as it is, or without tool results for the Stately bridge. */
  #textFor(connection: Connection, text: string, stripped: () => string): string {
    return connection.access.kind === 'viewer' && connection.access.stately && !this.#shareToolResults ? stripped() : text;
  }

  #broadcast(text: string, from: WebSocket | undefined): void {
    let strippedText: string | undefined;
    const stripped = (): string => (strippedText ??= JSON.stringify(withoutToolResults(JSON.parse(text) as unknown)));
    for (const [socket, connection] of this.#connections) {
      if (socket !== from && connection.access.kind === 'viewer') this.#send(socket, this.#textFor(connection, text, stripped));
    }
  }

  /** Sends to one viewer, or drops the viewer when it has fallen `maxBufferedBytes` behind. */
  #send(socket: WebSocket, text: string): void {
    if (socket.readyState !== WebSocket.OPEN) return;
    if (socket.bufferedAmount + Buffer.byteLength(text) > this.limits.maxBufferedBytes) {
      socket.terminate();
      return;
    }
    socket.send(text);
  }

  #onConnection(socket: WebSocket, access: Connection['access']): void {
    if (this.#closing) {
      socket.terminate();
      return;
    }
    const connection: Connection = { access, received: 0 };
    this.#connections.set(socket, connection);
    socket.on('error', () => socket.terminate());
    socket.on('close', () => this.#onClose(socket));
    socket.on('message', (data) => this.#onMessage(socket, connection, data));
    if (access.kind === 'producer') return;
    // Everything queued so far goes out first, then this viewer gets the tree as it is now.
    this.#flush();
    const send = (text: string): void =>
      this.#send(
        socket,
        this.#textFor(connection, text, () => JSON.stringify(withoutToolResults(JSON.parse(text) as unknown))),
      );
    for (const [sessionId, live] of this.#live) {
      if ((live.ref.getSnapshot() as { status?: string } | undefined)?.status !== 'active') {
        this.#live.delete(sessionId);
        continue;
      }
      send(wireText(actorMessage(live.ref, live.rootId, live.parentId), this.#redactor));
    }
    for (const { actor, snapshot } of this.#relayed.values()) send(wireText({ ...actor, snapshot }, this.#redactor));
  }

  #onClose(socket: WebSocket): void {
    const connection = this.#connections.get(socket);
    this.#connections.delete(socket);
    if (connection?.access.kind !== 'producer') return;
    // A producer's actors end with it: nothing of it is kept once it is gone.
    for (const [sessionId, relayed] of this.#relayed) {
      if (relayed.producer === socket) this.#forget(sessionId, relayed);
    }
  }

  #forget(sessionId: string, relayed: RelayedActor): void {
    this.#relayed.delete(sessionId);
    this.#retainedBytes -= relayed.actorBytes + relayed.snapshotBytes;
  }

  #onMessage(socket: WebSocket, connection: Connection, data: RawData): void {
    if (connection.access.kind !== 'producer') {
      // Viewers are read-only: one that sends is not a viewer.
      socket.close(POLICY_VIOLATION, 'viewers are read-only; a producer connects with ?token=');
      return;
    }
    const size = Array.isArray(data) ? data.reduce((sum, part) => sum + part.length, 0) : data.byteLength;
    connection.received += size;
    if (connection.received > this.limits.maxProducerBytes) {
      socket.close(POLICY_VIOLATION, `a producer may send at most ${this.limits.maxProducerBytes} bytes`);
      return;
    }
    this.#onProducerMessage(socket, data, size);
  }

  /** A message from a producer (`createWebSocketInspector`): redacted, remembered (bounded), relayed. */
  #onProducerMessage(socket: WebSocket, data: RawData, size: number): void {
    let safe: InspectorMessage;
    try {
      const message: unknown = JSON.parse(textOf(data));
      if (!isInspectorMessage(message)) return;
      safe = this.#redactor.redact(message);
    } catch {
      return; // not the protocol (or nested past what can be walked): ignore it
    }
    if (safe.type === '@xstate.actor') {
      const previous = this.#relayed.get(safe.sessionId);
      if (previous) this.#forget(safe.sessionId, previous);
      this.#relayed.set(safe.sessionId, { producer: socket, actor: safe, snapshot: safe.snapshot, actorBytes: size, snapshotBytes: 0 });
      this.#retainedBytes += size;
    } else if (safe.type === '@xstate.snapshot') {
      const known = this.#relayed.get(safe.sessionId);
      const status = (safe.snapshot as { status?: string } | undefined)?.status;
      if (known && known.producer === socket) {
        if (status !== undefined && status !== 'active') this.#forget(safe.sessionId, known);
        else {
          this.#retainedBytes += size - known.snapshotBytes;
          known.snapshot = safe.snapshot;
          known.snapshotBytes = size;
        }
      }
    }
    // Past the bound, the oldest actors are forgotten (viewers already connected saw them).
    for (const [sessionId, relayed] of this.#relayed) {
      if (this.#retainedBytes <= this.limits.maxRetainedBytes) break;
      this.#forget(sessionId, relayed);
    }
    this.#broadcast(wireText(safe, this.#redactor), socket);
  }
}

/** A WebSocket message's bytes as text, whichever of its shapes `ws` hands over. */
function textOf(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString();
  return Buffer.isBuffer(data) ? data.toString() : Buffer.from(data).toString();
}

/** Whether a producer's parsed message is one of the protocol's (`@xstate.*`, with a session id). */
function isInspectorMessage(value: unknown): value is InspectorMessage {
  return (
    typeof value === 'object' &&
    value !== null &&
    'type' in value &&
    typeof value.type === 'string' &&
    value.type.startsWith('@xstate.') &&
    'sessionId' in value &&
    typeof value.sessionId === 'string'
  );
}
