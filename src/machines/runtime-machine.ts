/**
 * The runtime's own actor: the root of the supervision tree that the Stately inspector draws
 * (runtime → actors → calls, runtime → servers). `running → shuttingDown → stopped`.
 *
 * It owns the tree, in XState's own terms:
 * - **Actor machines** are its children: `actor.spawn` spawns one (`agentActor`, the actor machine
 *   the runtime provides), `actor.stop` stops it (`stopChild`) once it is inactive again.
 * - **Server actors** are its children too, because they are shared: the actors of one tenant and
 *   sandbox share one server actor by reference, so none of them can own it. An actor acquires a
 *   server (`server.acquire`, naming itself as the holder) and releases it (`server.release`); the
 *   machine keeps who holds each server in its context, spawns the server actor for its first
 *   holder and forgets it when the last one lets go (`isLastHolder`). The server is then stopped
 *   cleanly by its client (its process closed), which sends `server.retire`: only then is the
 *   child stopped. A child stopped before its process is closed would leave the process behind.
 *
 * When the machine reaches `stopped` (final), XState stops whatever children are left.
 */
import { assign, enqueueActions, fromPromise, setup, stopChild, type AnyActorLogic, type AnyActorRef } from 'xstate';
import { actorMachine, type ActorMachineInput } from './actor-machine.js';

/**
 * What to spawn: the logic, its `id` (the label the inspector shows), `systemId` and input. Sent
 * inside an event, it serializes as its ids only (an inspector need not receive a whole machine).
 */
export class ChildSpawn<TInput = unknown> {
  constructor(
    readonly logic: AnyActorLogic,
    readonly id: string,
    readonly systemId: string,
    readonly input: TInput,
  ) {}

  toJSON(): { readonly id: string; readonly systemId: string } {
    return { id: this.id, systemId: this.systemId };
  }
}

/** One shared server actor and the actors that hold it (by their ids). */
export interface HeldServer {
  readonly ref: AnyActorRef;
  readonly holders: readonly string[];
}

export interface RuntimeContext {
  /** Server actors by key (server, tenant, sandbox). */
  readonly servers: Readonly<Record<string, HeldServer>>;
}

export type RuntimeMachineEvent =
  | { readonly type: 'runtime.shutdown' }
  /** Spawns an actor machine as a child of the runtime. */
  | { readonly type: 'actor.spawn'; readonly id: string; readonly systemId: string; readonly input: ActorMachineInput }
  /** Stops the actor machine of that child id (it is inactive: its servers are released). */
  | { readonly type: 'actor.stop'; readonly id: string }
  /** `holder` takes a reference to the server of `key`; `spawn` says how to create it if nobody holds it yet. */
  | { readonly type: 'server.acquire'; readonly key: string; readonly holder: string; readonly spawn?: ChildSpawn | undefined }
  | { readonly type: 'server.release'; readonly key: string; readonly holder: string }
  /** The server actor's process is closed: stop the child. */
  | { readonly type: 'server.retire'; readonly actor: AnyActorRef };

function without(servers: RuntimeContext['servers'], key: string): RuntimeContext['servers'] {
  const { [key]: _gone, ...rest } = servers;
  return rest;
}

export const runtimeMachine = setup({
  types: { context: {} as RuntimeContext, events: {} as RuntimeMachineEvent },
  actors: {
    agentActor: actorMachine,
    shutDown: fromPromise<void>(async () => {
      throw new Error('the runtime machine\'s "shutDown" actor was not provided');
    }),
  },
  guards: {
    isServerHeld: ({ context, event }) => event.type === 'server.acquire' && context.servers[event.key] !== undefined,
    canSpawnServer: ({ event }) => event.type === 'server.acquire' && event.spawn !== undefined,
    isLastHolder: ({ context, event }) => {
      if (event.type !== 'server.release') return false;
      const holders = context.servers[event.key]?.holders ?? [];
      return holders.length === 1 && holders[0] === event.holder;
    },
  },
  actions: {
    spawnActor: enqueueActions(({ enqueue, event }) => {
      if (event.type !== 'actor.spawn') return;
      enqueue.spawnChild('agentActor', { id: event.id, systemId: event.systemId, input: event.input });
    }),
    stopActor: stopChild(({ event }) => (event.type === 'actor.stop' ? event.id : '')),
    addHolder: assign({
      servers: ({ context, event }) => {
        if (event.type !== 'server.acquire') return context.servers;
        const held = context.servers[event.key]!;
        return { ...context.servers, [event.key]: { ref: held.ref, holders: [...held.holders, event.holder] } };
      },
    }),
    spawnServer: assign({
      servers: ({ context, event, spawn }) => {
        if (event.type !== 'server.acquire' || !event.spawn) return context.servers;
        const { logic, id, systemId, input } = event.spawn;
        // XState's types allow an `id` only for logic named in setup; at run time `spawn` takes it
        // for any logic (a server's machine is provided per client, so it cannot be named there).
        const spawnWithId = spawn as (logic: AnyActorLogic, options: { id: string; systemId: string; input: unknown }) => AnyActorRef;
        return { ...context.servers, [event.key]: { ref: spawnWithId(logic, { id, systemId, input }), holders: [event.holder] } };
      },
    }),
    removeHolder: assign({
      servers: ({ context, event }) => {
        if (event.type !== 'server.release') return context.servers;
        const held = context.servers[event.key];
        if (!held) return context.servers;
        // One reference at a time: an actor that acquired twice releases twice.
        const at = held.holders.indexOf(event.holder);
        if (at < 0) return context.servers;
        return { ...context.servers, [event.key]: { ref: held.ref, holders: held.holders.toSpliced(at, 1) } };
      },
    }),
    forgetServer: assign({
      servers: ({ context, event }) => (event.type === 'server.release' ? without(context.servers, event.key) : context.servers),
    }),
    stopServer: stopChild(({ event }) => (event.type === 'server.retire' ? event.actor : '')),
  },
}).createMachine({
  id: 'runtime',
  context: { servers: {} },
  initial: 'running',
  // These hold while the runtime shuts down too: an activation under way finishes (and is then
  // deactivated like every other), and actors and servers wind down.
  on: {
    'actor.spawn': { actions: 'spawnActor' },
    'actor.stop': { actions: 'stopActor' },
    'server.acquire': [{ guard: 'isServerHeld', actions: 'addHolder' }, { guard: 'canSpawnServer', actions: 'spawnServer' }],
    'server.release': [{ guard: 'isLastHolder', actions: 'forgetServer' }, { actions: 'removeHolder' }],
    'server.retire': { actions: 'stopServer' },
  },
  states: {
    running: {
      on: { 'runtime.shutdown': 'shuttingDown' },
    },
    shuttingDown: {
      invoke: { src: 'shutDown', onDone: 'stopped', onError: 'stopped' },
    },
    stopped: { type: 'final' },
  },
});
