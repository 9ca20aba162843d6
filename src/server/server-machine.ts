/**
 * The supervised MCP server as a statechart. Pure: it decides, the actors it invokes do the I/O
 * (`connectServer`, `closeServer`, `watchServer`, `pingServer`, provided by `src/server/`).
 *
 *   stopped ──start──▶ starting(connecting ─▶ failing ─▶ deciding ─▶ waiting ─▶ connecting …)
 *      ▲                   │ connected                      │ gives up
 *      │                   ▼                                ▼
 *   stopping ◀──stop── running(idle ⇄ busy)               error ──start/reconnect──▶ starting
 *
 * Public names: STOPPED, STARTING (spawn, handshake, and the wait between restarts), RUNNING,
 * STOPPING, ERROR — see `server-states.ts`.
 */
import { assign, fromCallback, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { ResolvedServerConfig } from '../config/server-config.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import { restartDelay } from '../timing/backoff.js';
import { restartsInWindow, withinIntensity } from './restart-intensity.js';
import type { ConnectEvent, ConnectInput, ConnectionEnded, ServerConnection, ServerExit, ServerHandle } from './server-io.js';
import { PUBLIC_STATE_OF, type ServerMachineTopState, type ServerState } from './server-states.js';

/** Time and chance, passed in so tests can fix them. */
export interface ServerClock {
  now(): number;
  random(): number;
}

export const systemClock: ServerClock = { now: () => Date.now(), random: () => Math.random() };

export interface ServerMachineInput {
  readonly config: ResolvedServerConfig;
  readonly clock?: ServerClock;
}

/** What happens once `stopping` has closed the server. */
type AfterStop = 'stopped' | 'error' | 'start';

export interface ServerContext {
  readonly config: ResolvedServerConfig;
  readonly clock: ServerClock;
  /** What must be closed: set as soon as something was spawned, kept until it is closed. */
  readonly handle: ServerHandle | undefined;
  readonly connection: ServerConnection | undefined;
  readonly generation: number;
  /** Automatic restarts still inside the intensity window (their times). */
  readonly restartTimes: readonly number[];
  /** Automatic restarts since the last explicit start. */
  readonly restartCount: number;
  /** When the next start attempt is due, while waiting between restarts. */
  readonly nextAttemptAt: number | undefined;
  /** Whether the last failure may be retried (a command that does not exist may not). */
  readonly retryable: boolean;
  /** The last failure, kept until the next one (also while RUNNING again, so an operator sees why it restarted). */
  readonly lastError: McpActorsError | undefined;
  /** How the process last ended (code, signal, stderr tail), kept until the next end. */
  readonly lastExit: ServerExit | undefined;
  /** The failure being handled broke the server's contract: what is left is killed, not stopped. */
  readonly killOnClose: boolean;
  /** The failure being handled ended a RUNNING server (its first restart in a window is immediate). */
  readonly crashed: boolean;
  /**
   * The open activity of the current connection (its id while it has requests in flight), for idle
   * stop. Not a count: McpClient counts the requests (`status().callsInFlight`) and tells this
   * machine only when the first begins and the last ends (`activity.began` / `activity.ended`).
   */
  readonly inFlight: readonly string[];
  readonly afterStop: AfterStop;
  /** Whether the start that follows the stop under way was asked for explicitly. */
  readonly resetOnStart: boolean;
  readonly runningSince: number | undefined;
  /** An asked-for stop is under way: until `stopping` is left, a call does not start the server again. */
  readonly stopRequested: boolean;
  /** Stopped for good (its client was disposed): a call never starts it again. */
  readonly retired: boolean;
}

export type ServerEvent =
  /** `explicit: false` for a lazy start by a call: it keeps the restart count and window. */
  | { readonly type: 'server.start'; readonly explicit?: boolean }
  /** `retire: true` when its client is disposed: no call starts it again. */
  | { readonly type: 'server.stop'; readonly retire?: boolean }
  | { readonly type: 'server.reconnect' }
  // A connection's first call in flight began / its last one ended (McpClient counts them): not the runtime's call.started / call.ended events.
  | { readonly type: 'activity.began'; readonly callId: string }
  | { readonly type: 'activity.ended'; readonly callId: string }
  | { readonly type: 'server.ended'; readonly ended: ConnectionEnded }
  | { readonly type: 'ping.failed'; readonly error: McpActorsError }
  | ConnectEvent;

/** Input of `closeServer`: what to close, and whether to kill it at once (a contract breach). */
export interface CloseInput {
  readonly handle: ServerHandle | undefined;
  readonly kill?: boolean;
}

function notProvided(name: string): never {
  throw new Error(`the server machine's "${name}" actor was not provided; use serverMachine.provide({ actors })`);
}

/** The connection of a running server (it is set by the event that enters running). */
function connectionOf(context: ServerContext): ServerConnection {
  if (context.connection === undefined) throw new Error(`server "${context.config.name}" is running without a connection`);
  return context.connection;
}

/** Where STOPPING goes once the server is closed (or failed to close: its process is gone either way). */
const AFTER_CLOSE = [
  { guard: 'shouldStartAfterStop', target: 'starting', actions: ['forgetConnection', 'resetRestarts'] },
  { guard: 'shouldFailAfterStop', target: 'error', actions: 'forgetConnection' },
  { target: 'stopped', actions: 'forgetConnection' },
] as const;

export const serverMachine = setup({
  types: {
    context: {} as ServerContext,
    events: {} as ServerEvent,
    input: {} as ServerMachineInput,
  },
  actors: {
    connectServer: fromCallback<ServerEvent, ConnectInput>(() => notProvided('connectServer')),
    // A promise's executor: what notProvided throws is the rejection.
    closeServer: fromPromise<ServerExit | undefined, CloseInput>(() => new Promise(() => notProvided('closeServer'))),
    watchServer: fromCallback<ServerEvent, { connection: ServerConnection }>(() => notProvided('watchServer')),
    pingServer: fromCallback<ServerEvent, { connection: ServerConnection; intervalMs: number }>(() => notProvided('pingServer')),
  },
  guards: {
    mustGiveUp: ({ context }) =>
      !context.retryable ||
      context.config.restart === 'temporary' ||
      !withinIntensity(context.restartTimes, context.clock.now(), context.config),
    isTemporary: ({ context }) => context.config.restart === 'temporary',
    isTransientAfterNormalExit: ({ context, event }) =>
      event.type === 'server.ended' && event.ended.normal && context.config.restart !== 'permanent',
    idleStopEnabled: ({ context }) => context.config.idleStopMs > 0,
    isLastCallInFlight: ({ context, event }) =>
      event.type === 'activity.ended' && context.inFlight.length === 1 && context.inFlight[0] === event.callId,
    shouldStartAfterStop: ({ context }) => context.afterStop === 'start',
    shouldFailAfterStop: ({ context }) => context.afterStop === 'error',
    refusesLazyStart: ({ context, event }) => event.type === 'server.start' && event.explicit === false && refusesLazyStart(context),
  },
  actions: {
    beginAttempt: assign({
      generation: ({ context }) => context.generation + 1,
      nextAttemptAt: undefined,
    }),
    rememberHandle: assign({
      handle: ({ event }) => (event.type === 'server.spawned' ? event.handle : undefined),
    }),
    rememberConnection: assign(({ event, context }) =>
      event.type === 'server.connected'
        ? {
            connection: event.connection,
            handle: event.connection,
            runningSince: context.clock.now(),
          }
        : {},
    ),
    recordStartFailure: assign(({ event, context }) =>
      event.type === 'server.startFailed'
        ? { lastError: event.error, retryable: event.retryable, crashed: false, lastExit: event.exit ?? context.lastExit }
        : {},
    ),
    recordStartTimeout: assign({
      retryable: true,
      crashed: false,
      killOnClose: true,
      lastError: ({ context }) =>
        new McpActorsError(
          ErrorCode.START_TIMEOUT,
          `server "${context.config.name}" did not finish the MCP initialize handshake within ${context.config.startTimeoutMs} ms; ` +
            'check that the command starts an MCP server on stdio, or raise startTimeoutMs',
          { details: { server: context.config.name, startTimeoutMs: context.config.startTimeoutMs } },
        ),
    }),
    recordEnded: assign(({ event, context }) => {
      if (event.type === 'server.ended') {
        return { lastError: event.ended.error, retryable: true, crashed: true, lastExit: event.ended.exit ?? context.lastExit };
      }
      // A server that stops answering pings broke its contract: it is killed, not asked to stop.
      if (event.type === 'ping.failed') return { lastError: event.error, retryable: true, crashed: true, killOnClose: true };
      return {};
    }),
    recordRestart: assign(({ context }) => {
      const now = context.clock.now();
      const window = restartsInWindow(context.restartTimes, now, context.config.periodMs);
      const delay = restartDelay(context.config.backoff, window.length, context.crashed, context.clock.random());
      return {
        restartTimes: [...window, now],
        restartCount: context.restartCount + 1,
        nextAttemptAt: now + delay,
      };
    }),
    // start() and reconnect() begin afresh; a lazy start by a call keeps the intensity window as it
    // was (neither cleared nor counted), so a server that keeps crashing cannot be respawned without
    // limit by a stream of calls.
    resetRestarts: assign(({ event, context }) =>
      (event.type === 'server.start' && event.explicit === false) ||
      (event.type !== 'server.start' && event.type !== 'server.reconnect' && !context.resetOnStart)
        ? { retryable: true }
        : { restartTimes: [], restartCount: 0, retryable: true },
    ),
    // Runs on every end of closeServer: its output is how the process ended (the kill of a
    // contract breach included), which becomes the last exit.
    forgetConnection: assign(({ event, context }) => ({
      handle: undefined,
      connection: undefined,
      runningSince: undefined,
      killOnClose: false,
      lastExit: exitOutput(event) ?? context.lastExit,
    })),
    addCall: assign({
      inFlight: ({ context, event }) => (event.type === 'activity.began' ? [...context.inFlight, event.callId] : context.inFlight),
    }),
    removeCall: assign({
      inFlight: ({ context, event }) =>
        event.type === 'activity.ended' ? context.inFlight.filter((id) => id !== event.callId) : context.inFlight,
    }),
    clearCalls: assign({ inFlight: [] }),
    thenStop: assign({ afterStop: 'stopped' as AfterStop }),
    thenStart: assign(({ event }) => ({
      afterStop: 'start',
      resetOnStart: !(event.type === 'server.start' && event.explicit === false),
    })),
    thenFail: assign({ afterStop: 'error' as AfterStop }),
    // An idle stop gives way to the next call; a stop someone asked for does not (see refusesLazyStart).
    noteStopRequest: assign(({ context, event }) => ({
      stopRequested: true,
      retired: context.retired || (event.type === 'server.stop' && event.retire === true),
    })),
    noteRetirement: assign(({ context, event }) => ({
      retired: context.retired || (event.type === 'server.stop' && event.retire === true),
    })),
    clearStopRequest: assign({ stopRequested: false }),
  },
  delays: {
    startTimeout: ({ context }) => context.config.startTimeoutMs,
    idleTimeout: ({ context }) => context.config.idleStopMs,
    restartDelay: ({ context }) => Math.max(0, (context.nextAttemptAt ?? 0) - context.clock.now()),
  },
}).createMachine({
  id: 'mcpServer',
  context: ({ input }) => ({
    config: input.config,
    clock: input.clock ?? systemClock,
    handle: undefined,
    connection: undefined,
    generation: 0,
    restartTimes: [],
    restartCount: 0,
    nextAttemptAt: undefined,
    retryable: true,
    lastError: undefined,
    lastExit: undefined,
    killOnClose: false,
    crashed: false,
    inFlight: [],
    afterStop: 'stopped',
    resetOnStart: true,
    runningSince: undefined,
    stopRequested: false,
    retired: false,
  }),
  initial: 'stopped',
  states: {
    stopped: {
      on: {
        // As in OTP, a start is never a restart: a transient or temporary server that exited
        // normally is started again by the next call, and the intensity is left as it was.
        'server.start': [{ guard: 'refusesLazyStart' }, { target: 'starting', actions: 'resetRestarts' }],
        'server.reconnect': { target: 'starting', actions: 'resetRestarts' },
        'server.stop': { actions: 'noteRetirement' },
      },
    },
    starting: {
      initial: 'connecting',
      on: {
        'server.stop': { target: 'stopping', actions: ['thenStop', 'noteStopRequest'] },
        'server.reconnect': { target: 'stopping', actions: ['thenStart'] },
      },
      states: {
        connecting: {
          entry: 'beginAttempt',
          invoke: {
            src: 'connectServer',
            input: ({ context }) => ({ config: context.config, generation: context.generation }),
          },
          on: {
            'server.spawned': { actions: 'rememberHandle' },
            'server.connected': { target: '#mcpServer.running', actions: 'rememberConnection' },
            'server.startFailed': { target: 'failing', actions: 'recordStartFailure' },
          },
          after: {
            startTimeout: { target: 'failing', actions: 'recordStartTimeout' },
          },
        },
        failing: {
          invoke: {
            src: 'closeServer',
            input: ({ context }) => ({ handle: context.handle, kill: context.killOnClose }),
            onDone: { target: 'deciding', actions: 'forgetConnection' },
            onError: { target: 'deciding', actions: 'forgetConnection' },
          },
        },
        deciding: {
          always: [
            { guard: 'mustGiveUp', target: '#mcpServer.error' },
            { target: 'waiting', actions: 'recordRestart' },
          ],
        },
        waiting: {
          after: { restartDelay: 'connecting' },
        },
      },
    },
    running: {
      initial: 'idle',
      invoke: [
        { src: 'watchServer', input: ({ context }) => ({ connection: connectionOf(context) }) },
        {
          src: 'pingServer',
          input: ({ context }) => ({ connection: connectionOf(context), intervalMs: context.config.pingIntervalMs }),
        },
      ],
      exit: 'clearCalls',
      on: {
        'activity.began': { target: '.busy', actions: 'addCall' },
        'activity.ended': [{ guard: 'isLastCallInFlight', target: '.idle', actions: 'removeCall' }, { actions: 'removeCall' }],
        'server.ended': [
          { guard: 'isTransientAfterNormalExit', target: 'stopping', actions: ['recordEnded', 'thenStop'] },
          { guard: 'isTemporary', target: 'stopping', actions: ['recordEnded', 'thenFail'] },
          { target: 'starting.failing', actions: 'recordEnded' },
        ],
        'ping.failed': [
          { guard: 'isTemporary', target: 'stopping', actions: ['recordEnded', 'thenFail'] },
          { target: 'starting.failing', actions: 'recordEnded' },
        ],
        'server.stop': { target: 'stopping', actions: ['thenStop', 'noteStopRequest'] },
        'server.reconnect': { target: 'stopping', actions: 'thenStart' },
      },
      states: {
        idle: {
          after: { idleTimeout: { guard: 'idleStopEnabled', target: '#mcpServer.stopping', actions: 'thenStop' } },
        },
        busy: {},
      },
    },
    stopping: {
      exit: 'clearStopRequest',
      invoke: {
        src: 'closeServer',
        input: ({ context }) => ({ handle: context.handle, kill: context.killOnClose }),
        // What was asked for while it stopped decides.
        onDone: AFTER_CLOSE,
        onError: AFTER_CLOSE,
      },
      on: {
        'server.start': [{ guard: 'refusesLazyStart' }, { actions: 'thenStart' }],
        'server.reconnect': { actions: 'thenStart' },
        'server.stop': { actions: ['thenStop', 'noteStopRequest'] },
      },
    },
    error: {
      on: {
        'server.stop': { target: 'stopped', actions: 'noteRetirement' },
        'server.start': { target: 'starting', actions: 'resetRestarts' },
        'server.reconnect': { target: 'starting', actions: 'resetRestarts' },
      },
    },
  },
});

export type ServerSnapshot = SnapshotFrom<typeof serverMachine>;

/** A running server actor: a root one, or a child of the runtime's machine. */
export type ServerActorRef = ActorRefFrom<typeof serverMachine>;

/**
 * Whether a call may not start the server (a lazy start): while a stop someone asked for is under
 * way, and for good once the server is retired. The machine's `refusesLazyStart` guard, also read
 * by a caller that would otherwise wait for a start that will not come.
 */
export function refusesLazyStart(context: Pick<ServerContext, 'stopRequested' | 'retired'>): boolean {
  return context.stopRequested || context.retired;
}

/** The public state name (STOPPED, STARTING, RUNNING, STOPPING, ERROR) of a snapshot. */
export function publicStateOf(snapshot: ServerSnapshot): ServerState {
  const value = snapshot.value;
  const top = (typeof value === 'string' ? value : Object.keys(value)[0]) as ServerMachineTopState;
  return PUBLIC_STATE_OF[top];
}

/** The exit a done event of `closeServer` carries (the named action sees the event untyped). */
function exitOutput(event: { type: string }): ServerExit | undefined {
  const output = (event as { output?: unknown }).output;
  return typeof output === 'object' && output !== null && 'stderrTail' in output ? (output as ServerExit) : undefined;
}
