/**
 * `McpClient`: a handle over one supervised MCP server actor. Calls start a stopped server
 * (lazy start), wait through restarts until their own deadline, and end exactly once: with the
 * server's answer (`isError: true` included) or with a classified `McpActorsError`.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { BehaviorSubject, distinctUntilChanged, Subject, type Observable } from 'rxjs';
import { createActor, waitFor, type InspectionEvent, type Observer } from 'xstate';
import type { McpServerConfig, ResolvedServerConfig } from '../config/server-config.js';
import { isResolvedServerConfig, validateServerConfig } from '../config/server-config.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { McpCapabilityMetadata, ServerConnection, ServerExit, TransportDiagnostics } from '../server/server-io.js';
import {
  publicStateOf,
  serverMachine,
  type ServerActorRef,
  type ServerClock,
  type ServerMachineInput,
  type ServerSnapshot,
} from '../server/server-machine.js';
import type { ServerState } from '../server/server-states.js';
import { createConnectServer, defaultServerActors, type ServerActors } from '../server/server-actors.js';
import { withServerConfig } from '../server/transport-connect.js';
import { Redactor, redactedConfig } from '../redaction/redactor.js';
import type { ElicitHandler, SampleHandler } from '../server/server-requests.js';
import type { OAuthClientProvider } from '../auth/server-auth.js';
import { recordingSecrets } from '../auth/secret-recording-provider.js';
import { currentCallContext, type CallContext } from '../server/call-context.js';
import { awaitConnection, serverInErrorError } from './await-connection.js';
import { classifyRequestError } from './classify-request-error.js';
import { isCallScoped, linkCallSignal, type CallSignal } from '../registry/call-signal.js';
import { MAX_TIMER_MS, withDeadline } from '../timing/deadline.js';
import { CALL_SIGNAL } from '../registry/tool-descriptor.js';
import { startMcpRequest } from '../telemetry/mcp-request-span.js';

export interface McpClientOptions {
  /** Replace the I/O of the machine (tests, custom transports). */
  readonly actors?: Partial<ServerActors>;
  readonly clock?: ServerClock;
  /** Any XState inspection observer, e.g. `createBrowserInspector().inspect` or `@statelyai/inspect`. */
  readonly inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /** The server actor's `systemId` (default `server:<name>`). */
  readonly systemId?: string;
  /** The server actor's `id`, the name the inspector shows (default: its systemId). */
  readonly id?: string;
  /**
   * Where the server actor lives, when not as a root actor of its own: the client hands its machine
   * to `host.spawn` (the runtime's machine spawns it as its child), and once `dispose()` has stopped
   * the server it calls `host.retire` (the runtime's machine then stops the child).
   */
  readonly host?: ServerActorHost;
  /**
   * Removes secrets from `status()` and from errors (default: one that knows this server's `env`
   * and `headers` values). The runtime passes its own, which already knows every server's.
   */
  readonly redactor?: Redactor;
  /**
   * sse / streamable-http: the OAuth client provider of this server (the SDK's
   * `ClientCredentialsProvider`, `PrivateKeyJwtProvider`, our `LoopbackOAuthProvider`, or your own).
   */
  readonly auth?: OAuthClientProvider;
  /** Answers the server's `elicitation/create`; the elicitation capability is declared only when given. */
  readonly onElicit?: ElicitHandler;
  /** Answers the server's `sampling/createMessage`; the sampling capability is declared only when given. */
  readonly onSample?: SampleHandler;
}

/** An actor that spawns and owns server actors (see `McpClientOptions.host`). */
export interface ServerActorHost {
  spawn(
    logic: typeof serverMachine,
    options: { readonly id: string; readonly systemId: string; readonly input: ServerMachineInput },
  ): ServerActorRef;
  retire(actor: ServerActorRef): void;
}

export interface RequestOptions {
  /** Deadline of this request from when it is made, waiting for a start included (default `callTimeoutMs`). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export interface CallOptions extends RequestOptions {
  /** Sent as the request's `_meta` (the runtime puts the tenant id here). */
  readonly meta?: Readonly<Record<string, unknown>>;
  /**
   * Whose call it is, for a question the server asks back while it runs (elicitation, sampling);
   * default: the context of `withCallContext` around the call, if any. The runtime passes it.
   */
  readonly context?: CallContext;
}

/** A snapshot of the server for status displays. */
export interface McpServerStatus {
  readonly name: string;
  readonly state: ServerState;
  readonly pid: number | undefined;
  readonly restarts: number;
  readonly nextAttemptAt: number | undefined;
  /** The last failure, kept until the next one (also once RUNNING again). */
  readonly lastError: McpActorsError | undefined;
  /** How the server's process last ended (code, signal, stderr tail), kept until the next end. */
  readonly lastExit: ServerExit | undefined;
  readonly uptimeMs: number | undefined;
  readonly callsInFlight: number;
  readonly capabilities: McpCapabilityMetadata | undefined;
  readonly serverInfo: { readonly name: string; readonly version: string } | undefined;
  /** The server's last stderr lines and stray stdout lines, for stdio servers. */
  readonly diagnostics: TransportDiagnostics | undefined;
}

let activitySequence = 0;

/** A connection's requests in flight: one record per request, so their count is the set's size. */
interface Activity {
  readonly id: string;
  readonly calls: Set<InFlightCall>;
}

/** One request in flight, with the actor's call it serves (if any). */
interface InFlightCall {
  readonly activity: Activity;
  readonly context: CallContext | undefined;
}

// `provide` builds a whole new state-node tree (about 29 KiB of heap): with the default actors
// every client can share one.
let defaultMachine: typeof serverMachine | undefined;
function defaultServerMachine(): typeof serverMachine {
  defaultMachine ??= serverMachine.provide({ actors: defaultServerActors });
  return defaultMachine;
}

/** Waits for `work` within one caller's deadline and signal (the one deadline, `timing/deadline.ts`), leaving `work` itself running. */
function withinDeadline<T>(
  work: Promise<T>,
  context: { server: string; what: string; deadline: number; timeoutMs: number; signal: AbortSignal | undefined },
): Promise<T> {
  const { server, what, deadline, timeoutMs, signal } = context;
  return withDeadline(work, {
    ms: Math.max(0, deadline - Date.now()),
    signal,
    onAbort: (reason) => {
      throw new McpActorsError(ErrorCode.CANCELLED, `${what} on server "${server}" was cancelled by the caller`, {
        cause: reason,
        details: { server },
      });
    },
    onTimeout: () => {
      throw new McpActorsError(
        ErrorCode.REQUEST_TIMEOUT,
        `${what} on server "${server}" got no answer within ${timeoutMs} ms; raise timeoutMs (or callTimeoutMs) if the server is slow`,
        {
          details: { server, timeoutMs },
        },
      );
    },
  });
}

/**
 * A supervised MCP server and the way to talk to it.
 *
 * @example
 * await using client = new McpClient({ name: 'everything', command: 'node', args: ['server.js', 'stdio'] });
 * const tools = await client.listTools();          // starts the server on first use
 * const result = await client.callTool('echo', { message: 'hi' }, { timeoutMs: 5_000 });
 */
export class McpClient implements AsyncDisposable {
  readonly name: string;
  readonly config: ResolvedServerConfig;
  /** The server's public state, replaying the current one to each new subscriber. */
  readonly state$: Observable<ServerState>;
  /** Fires when the server says its tool list changed (the cached list is dropped first). */
  readonly toolsChanged$: Observable<void>;
  private readonly serverActor: ServerActorRef;
  private readonly states: BehaviorSubject<ServerState>;
  private readonly toolsChanged = new Subject<void>();
  private toolCache: { connection: ServerConnection; tools: Promise<Tool[]> } | undefined;
  private watchedConnection: ServerConnection | undefined;
  /** The requests in flight on each connection: counted here only (the machine hears the idle/busy edges). */
  private readonly activity = new WeakMap<ServerConnection, Activity>();
  /** The connections with requests in flight now: a replaced connection's calls may still run. */
  private readonly busy = new Set<Activity>();
  private disposed = false;
  private readonly redactor: Redactor;
  private readonly host: ServerActorHost | undefined;

  constructor(config: McpServerConfig, options: McpClientOptions = {}) {
    // A configuration loaded from a file (or by validateServerConfig) is validated once, there.
    this.config = isResolvedServerConfig(config) ? config : validateServerConfig(config);
    this.name = this.config.name;
    // A runtime's redactor already knows this server's configuration as written (before the
    // tenant was filled in: the tenant is a name, not a secret).
    this.host = options.host;
    this.redactor = options.redactor ?? new Redactor();
    if (!options.redactor) this.redactor.addServerConfig(this.config);
    // The machine's context holds a redacted copy of the configuration; only the connect actor
    // holds the real one. When there is nothing secret, no auth and no handler, the shared machine
    // (provided once) does: providing a machine per client costs ~29 KiB of heap.
    const shown = redactedConfig(this.config);
    const bespoke = shown !== this.config || options.auth !== undefined || options.onElicit !== undefined || options.onSample !== undefined;
    // Every token the provider obtains or loads is secret from that moment (the server may echo it).
    const redactor = this.redactor;
    const auth = options.auth ? recordingSecrets(options.auth, (value) => redactor.addSecret(value)) : undefined;
    const connectServer = bespoke
      ? createConnectServer({
          config: this.config,
          auth,
          handlers: { onElicit: options.onElicit, onSample: options.onSample, related: () => this.relatedContext() },
        })
      : undefined;
    // A host's transport factory (connectOverTransport) gets the real configuration, like ours.
    const hostActors = options.actors?.connectServer
      ? { ...options.actors, connectServer: withServerConfig(options.actors.connectServer, this.config) }
      : options.actors;
    const machine =
      hostActors || connectServer
        ? serverMachine.provide({ actors: { ...defaultServerActors, ...(connectServer ? { connectServer } : {}), ...hostActors } })
        : defaultServerMachine();
    const systemId = options.systemId ?? `server:${this.name}`;
    const input: ServerMachineInput = { config: shown, ...(options.clock ? { clock: options.clock } : {}) };
    const id = options.id ?? systemId;
    // Hosted, the actor is spawned (and started) by its host; otherwise it is a root of its own.
    const host = options.host;
    this.serverActor = host
      ? host.spawn(machine, { id, systemId, input })
      : createActor(machine, { input, id, systemId, ...(options.inspect ? { inspect: options.inspect } : {}) });
    this.states = new BehaviorSubject<ServerState>('STOPPED');
    this.state$ = this.states.pipe(distinctUntilChanged());
    this.toolsChanged$ = this.toolsChanged.asObservable();
    this.serverActor.subscribe({
      next: (snapshot) => this.onSnapshot(snapshot),
      // The machine has no failing paths by design; should one appear, report it, never crash the host.
      error: (error: unknown) => this.states.error(error),
    });
    if (!host) this.serverActor.start();
  }

  /** The current public state: STOPPED, STARTING, RUNNING, STOPPING or ERROR. */
  get state(): ServerState {
    return publicStateOf(this.serverActor.getSnapshot());
  }

  /** The underlying XState actor, for inspection (a child of the runtime's actor when hosted). */
  get actor(): ServerActorRef {
    return this.serverActor;
  }

  /** What the server said it can do in the last handshake. */
  get capabilities(): McpCapabilityMetadata | undefined {
    return this.serverActor.getSnapshot().context.connection?.capabilities;
  }

  status(): McpServerStatus {
    const snapshot = this.serverActor.getSnapshot();
    const { context } = snapshot;
    return this.redactor.redact({
      name: this.name,
      state: publicStateOf(snapshot),
      pid: context.handle?.pid,
      restarts: context.restartCount,
      nextAttemptAt: context.nextAttemptAt,
      lastError: context.lastError,
      lastExit: context.lastExit,
      uptimeMs: context.runningSince === undefined ? undefined : context.clock.now() - context.runningSince,
      callsInFlight: context.connection ? (this.activity.get(context.connection)?.calls.size ?? 0) : 0,
      capabilities: context.connection?.capabilities,
      serverInfo: context.connection?.serverInfo,
      diagnostics: context.handle?.diagnostics?.(),
    });
  }

  /** Starts the server (or restarts it from ERROR); resolves once it is RUNNING. */
  async start(options: RequestOptions = {}): Promise<void> {
    this.assertUsable('start()');
    // An explicit start begins afresh: from ERROR, and the restart count and window are reset.
    if (this.state !== 'RUNNING' && this.state !== 'STARTING') this.serverActor.send({ type: 'server.start' });
    await this.connection('start()', options);
  }

  /** Stops the server cleanly; resolves once no process of it is left. Calls waiting for a start fail. */
  stop(): Promise<void> {
    return this.stopServer(false);
  }

  /**
   * While an asked-for stop is under way, the machine lets no call start the server again (it fails
   * with SERVER_STOPPED instead); an idle stop, by contrast, gives way to the next call. A retiring
   * stop (dispose) lets none ever again.
   */
  private async stopServer(retire: boolean): Promise<void> {
    this.serverActor.send({ type: 'server.stop', ...(retire ? { retire: true } : {}) });
    // Over once the machine has left `stopping` (stopped, in error, or started again by start()).
    // waitFor rejects when the actor ends first: the stop is over then too.
    await waitFor(this.serverActor, (snapshot) => !snapshot.context.stopRequested || snapshot.status !== 'active').catch(() => undefined);
  }

  /** A clean stop and a fresh start; the tool cache is cleared. Resolves once RUNNING again. */
  async reconnect(options: RequestOptions = {}): Promise<void> {
    this.assertUsable('reconnect()');
    this.toolCache = undefined;
    this.serverActor.send({ type: 'server.reconnect' });
    await this.connection('reconnect()', options);
  }

  /** Every tool the server offers (all pages), cached until the list changes or the server restarts. */
  async listTools(options: RequestOptions = {}): Promise<Tool[]> {
    this.assertUsable('listTools()');
    const what = 'tools/list';
    const { connection, deadline, timeoutMs } = await this.connectionWithDeadline(what, options);
    let listing = this.toolCache?.connection === connection ? this.toolCache.tools : undefined;
    if (!listing) {
      // One listing serves every caller that asks while it runs, so it has its own deadline and no
      // caller's signal: one caller giving up must not fail the others.
      const fetched = this.fetchAllTools(connection);
      listing = fetched;
      this.toolCache = { connection, tools: fetched };
      fetched.catch(() => {
        if (this.toolCache?.tools === fetched) this.toolCache = undefined;
      });
    }
    return withinDeadline(listing, { server: this.name, what, deadline, timeoutMs, signal: options.signal });
  }

  private fetchAllTools(connection: ServerConnection): Promise<Tool[]> {
    const timeoutMs = this.config.callTimeoutMs;
    return this.track(connection, async () => {
      const all: Tool[] = [];
      let cursor: string | undefined;
      do {
        const traced = startMcpRequest({ ...this.requestFacts(connection), method: 'tools/list' });
        const page = await connection.client
          .listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs })
          .catch((error: unknown) => {
            traced.end(
              requestFailure(
                classifyRequestError(error, { server: this.name, what: 'tools/list', timeoutMs, signal: undefined, connection }),
              ),
            );
            throw error;
          });
        traced.end();
        all.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return all;
    }).catch((error: unknown) => {
      throw classifyRequestError(error, { server: this.name, what: 'tools/list', timeoutMs, signal: undefined, connection });
    });
  }

  /**
   * Calls a tool. Resolves with the server's answer — a tool failure is an answer with
   * `isError: true` and its text in `content[0].text`. Rejects only when no answer can come:
   * REQUEST_TIMEOUT, CANCELLED, CONNECTION_LOST, SERVER_IN_ERROR, SERVER_STOPPED, or
   * PROTOCOL_ERROR when the server answers with a JSON-RPC error.
   */
  async callTool(name: string, args: Record<string, unknown> = {}, options: CallOptions = {}): Promise<CallToolResult> {
    this.assertUsable('callTool()');
    if (typeof name !== 'string' || name.length === 0) {
      throw new McpActorsError(ErrorCode.INVALID_ARGUMENT, 'callTool(name, args) needs the tool name as a non-empty string', {
        details: { server: this.name, name },
      });
    }
    // A JavaScript caller can pass anything.
    const givenArgs: unknown = args;
    if (typeof givenArgs !== 'object' || givenArgs === null || Array.isArray(givenArgs)) {
      throw new McpActorsError(
        ErrorCode.INVALID_ARGUMENT,
        `callTool("${name}", args) needs args as a plain object of named arguments, got ${Array.isArray(givenArgs) ? 'an array' : String(givenArgs)}`,
        { details: { server: this.name, name } },
      );
    }
    // The hot path: a RUNNING server answers at once, without the waiting machinery (each await
    // of it is a promise and a microtask hop per call).
    const { connection, deadline, timeoutMs } =
      this.runningConnection(options) ?? (await this.connectionWithDeadline(`call "${name}"`, options));
    // The SDK never removes the listener it adds to a request's signal: give it one of this call's
    // own, linked to the caller's only until the call settles (see tool-call/call-signal.ts).
    // The call path's own signal (an actor's call, through the adapter) is given to the SDK as it
    // is; a caller's is linked to one of this call's own. Either way the SDK gets the call's light
    // request signal, not an AbortController (see `LinkedCallSignal.requestSignal`).
    const own = (options as { readonly [CALL_SIGNAL]?: CallSignal })[CALL_SIGNAL];
    const given = own === undefined ? options.signal : undefined;
    const call = given && !isCallScoped(given) ? linkCallSignal(given) : undefined;
    const signal = own ? own.requestSignal : call ? call.requestSignal : given;
    const context = options.context ?? currentCallContext();
    const inFlight = this.callBegan(connection, context);
    const traced = startMcpRequest({ ...this.requestFacts(connection), method: 'tools/call', target: name, meta: options.meta });
    try {
      const answer = (await connection.client.callTool(
        traced.meta ? { name, arguments: args, _meta: traced.meta } : { name, arguments: args },
        undefined,
        {
          // The SDK's own timer (it owns the request's timeout and cancel); setTimeout would fire at once past its range.
          timeout: Math.min(MAX_TIMER_MS, Math.max(1, deadline - Date.now())),
          ...(signal ? { signal } : {}),
        },
      )) as CallToolResult;
      traced.end(answer.isError === true ? { errorType: 'tool_error' } : undefined);
      return answer;
    } catch (error) {
      const classified = classifyRequestError(error, { server: this.name, what: `call "${name}"`, timeoutMs, signal, connection });
      traced.end(requestFailure(classified));
      throw classified;
    } finally {
      this.callEnded(inFlight);
      call?.unlink();
    }
  }

  /** What a request's span says of the server and its session (see telemetry/mcp-request-span.ts). */
  private requestFacts(connection: ServerConnection): {
    server: string;
    transport: string;
    sessionId: string | undefined;
    protocolVersion: string | undefined;
  } {
    return {
      server: this.name,
      transport: this.config.transport,
      sessionId: connection.client.transport?.sessionId,
      protocolVersion: connection.protocolVersion,
    };
  }

  /** Stops the server and the actor; the client cannot be used afterwards. */
  async [Symbol.asyncDispose](): Promise<void> {
    if (this.disposed) return;
    this.disposed = true; // no new call may use the client
    await this.stopServer(true);
    // A root actor stops itself; a hosted one is stopped by its host.
    if (this.host) this.host.retire(this.serverActor);
    else this.serverActor.stop();
    this.states.complete();
    this.toolsChanged.complete();
  }

  /** Same as `await using`'s disposal. */
  dispose(): Promise<void> {
    return this[Symbol.asyncDispose]();
  }

  /** The connection when the server is RUNNING now (what `connectionWithDeadline` would give at once). */
  private runningConnection(options: RequestOptions): { connection: ServerConnection; deadline: number; timeoutMs: number } | undefined {
    const timeoutMs = options.timeoutMs ?? this.config.callTimeoutMs;
    if (typeof timeoutMs !== 'number' || !(timeoutMs > 0)) return undefined; // the slow path says why
    const snapshot = this.serverActor.getSnapshot();
    const connection = snapshot.context.connection;
    if (connection === undefined || publicStateOf(snapshot) !== 'RUNNING') return undefined;
    return { connection, deadline: Date.now() + timeoutMs, timeoutMs };
  }

  /** For start() and reconnect(): asked for explicitly, so they may start the server even during a stop. */
  private async connection(what: string, options: RequestOptions): Promise<ServerConnection> {
    return (await this.connectionWithDeadline(what, options, true)).connection;
  }

  private async connectionWithDeadline(
    what: string,
    options: RequestOptions,
    explicit = false,
  ): Promise<{ connection: ServerConnection; deadline: number; timeoutMs: number }> {
    const timeoutMs = options.timeoutMs ?? this.config.callTimeoutMs;
    if (typeof timeoutMs !== 'number' || !(timeoutMs > 0)) {
      throw new McpActorsError(
        ErrorCode.INVALID_ARGUMENT,
        `timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`,
        {
          details: { server: this.name },
        },
      );
    }
    const deadline = Date.now() + timeoutMs;
    try {
      for (;;) {
        const connection = await awaitConnection(this.serverActor, {
          what,
          deadline,
          timeoutMs,
          signal: options.signal,
          explicit,
        });
        // The server may have moved on between "RUNNING" and now; wait again for the next connection.
        if (this.serverActor.getSnapshot().context.connection === connection) return { connection, deadline, timeoutMs };
        if (this.state === 'ERROR') throw serverInErrorError(this.serverActor.getSnapshot(), what);
      }
    } catch (error) {
      // A start failure quotes the server's stderr, which may echo its environment.
      throw this.redactor.redactError(error);
    }
  }

  /**
   * Counts a request as in flight while `work` runs. The machine only needs to know when a
   * connection goes from idle to busy and back (for idle stop), so it gets one event at each
   * edge rather than two per request, and none when idle stop is off — a send is a transition
   * (tens of microseconds), and this is the hot path.
   */
  private async track<T>(connection: ServerConnection, work: () => Promise<T>): Promise<T> {
    const call = this.callBegan(connection, currentCallContext());
    try {
      return await work();
    } finally {
      this.callEnded(call);
    }
  }

  private callBegan(connection: ServerConnection, context: CallContext | undefined): InFlightCall {
    const activity = this.activityOf(connection);
    const call: InFlightCall = { activity, context };
    activity.calls.add(call);
    if (activity.calls.size === 1) this.busy.add(activity);
    if (activity.calls.size === 1 && this.config.idleStopMs > 0 && this.serverActor.getSnapshot().context.connection === connection) {
      this.serverActor.send({ type: 'activity.began', callId: activity.id });
    }
    return call;
  }

  private callEnded(call: InFlightCall): void {
    const { activity } = call;
    activity.calls.delete(call);
    if (activity.calls.size === 0) this.busy.delete(activity);
    if (activity.calls.size === 0 && this.config.idleStopMs > 0) this.serverActor.send({ type: 'activity.ended', callId: activity.id });
  }

  /**
   * The context of the calls in flight when they all belong to one actor (see
   * `ServerRequestContext.related`), on every connection: a question may come from a replaced
   * connection whose calls still run, and must then not be charged to the new one's actor.
   */
  private relatedContext(): CallContext | undefined {
    let related: CallContext | undefined;
    for (const activity of this.busy) {
      for (const { context } of activity.calls) {
        if (!context) continue; // a host's own request belongs to no actor
        if (!related) related = context;
        else if (context.actor !== related.actor || context.tenant !== related.tenant) return undefined;
      }
    }
    return related;
  }

  private activityOf(connection: ServerConnection): Activity {
    let activity = this.activity.get(connection);
    if (!activity) {
      activity = { id: `${this.name}#${++activitySequence}`, calls: new Set() };
      this.activity.set(connection, activity);
    }
    return activity;
  }

  private onSnapshot(snapshot: ServerSnapshot): void {
    this.states.next(publicStateOf(snapshot));
    const connection = snapshot.context.connection;
    if (connection && connection !== this.watchedConnection) {
      this.watchedConnection = connection;
      this.toolCache = undefined;
      connection.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        if (this.toolCache?.connection === connection) this.toolCache = undefined;
        this.toolsChanged.next();
      });
    }
  }

  private assertUsable(what: string): void {
    if (this.disposed) {
      throw new McpActorsError(
        ErrorCode.NOT_CONNECTED,
        `${what} on server "${this.name}" after the client was disposed; create a new McpClient`,
        {
          details: { server: this.name },
        },
      );
    }
  }
}

/** How a failed request ends its span: the error's code, and the JSON-RPC code where the server sent one. */
function requestFailure(error: McpActorsError): { errorType: string; jsonRpcCode: number | undefined } {
  const code = error.details.mcpCode;
  return { errorType: error.code, jsonRpcCode: typeof code === 'number' ? code : undefined };
}
