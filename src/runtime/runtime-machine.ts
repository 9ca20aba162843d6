/**
 * The runtime's own actor: the root of the supervision tree that the Stately inspector draws
 * (runtime → agent actors → calls; runtime → server supervisors → servers).
 * `running → shuttingDown → stopped`.
 *
 * It owns the tree, in XState's own terms:
 * - **Agent actor machines** are its children: `actor.spawn` spawns one (`agentActor`, the actor
 *   machine the runtime provides) and answers with `actor.spawned` (an emitted event, with its
 *   ref); `actor.stop` stops it (`stopChild`) once it is inactive again.
 * - **Server supervisors** are its children too, one per (tenant, sandbox): servers are shared by
 *   reference among the agent actors of one tenant and sandbox, so none of those can be their
 *   parent (an XState actor has one). An agent actor asks for a server with `server.acquire`
 *   (naming itself as holder and `replyTo`); this machine spawns the supervisor the request names
 *   if there is none yet and forwards the request to it, which answers the agent actor directly
 *   (`server.acquired`, see `server-supervisor.ts`). `server.release` and `server.retire` are
 *   forwarded the same way. A supervisor with no server left says so (`supervisor.empty`) and is
 *   stopped, unless an acquire was forwarded to it meanwhile.
 *
 * When the machine reaches `stopped` (final), XState stops whatever children are left.
 */
import { assign, emit, fromPromise, sendTo, setup, stopChild, type AnyActorRef } from 'xstate';
import { actorMachine, type ActorMachineInput } from './actor-machine.js';
import type { ChildSpawn } from './child-spawn.js';
import { serverSupervisor, type SupervisorEmpty, type SupervisorInput, type SupervisorReply } from './server-supervisor.js';

/** Which supervisor a server request is for: its id (also its systemId and label) and what it serves. */
export interface SupervisorAddress {
  readonly id: string;
  readonly input: SupervisorInput;
}

/** A server supervisor, and how many acquires were forwarded to it. */
export interface SupervisorEntry {
  readonly ref: AnyActorRef;
  readonly acquires: number;
}

export interface RuntimeContext {
  /** The agent actor machines, by child id. */
  readonly actors: Readonly<Record<string, AnyActorRef>>;
  /** The server supervisors, by id (one per tenant and sandbox). */
  readonly supervisors: Readonly<Record<string, SupervisorEntry>>;
}

export type RuntimeMachineEvent =
  | { readonly type: 'runtime.shutdown' }
  /** Spawns an actor machine as a child of the runtime; answered by the emitted `actor.spawned`. */
  | { readonly type: 'actor.spawn'; readonly id: string; readonly systemId: string; readonly input: ActorMachineInput }
  /** Stops the actor machine of that child id (it is inactive: its servers are released). */
  | { readonly type: 'actor.stop'; readonly id: string }
  /** Forwarded to the supervisor `supervisor` (spawned first if there is none). */
  | {
      readonly type: 'server.acquire';
      readonly key: string;
      readonly holder: string;
      readonly replyTo: AnyActorRef;
      readonly supervisor: SupervisorAddress;
      readonly spawn?: ChildSpawn | undefined;
    }
  | {
      readonly type: 'server.release';
      readonly key: string;
      readonly holder: string;
      readonly replyTo: AnyActorRef;
      readonly supervisor: string;
    }
  /** The server actor's process is closed: its supervisor stops the child. */
  | { readonly type: 'server.retire'; readonly supervisor: string; readonly actor: AnyActorRef }
  | SupervisorEmpty;

/** What the runtime's actor emits (`runtime.actor.on(...)`). */
export type RuntimeEmitted = { readonly type: 'actor.spawned'; readonly id: string; readonly ref: AnyActorRef };

function supervisorOf(context: RuntimeContext, event: RuntimeMachineEvent): SupervisorEntry | undefined {
  if (event.type === 'server.acquire') return context.supervisors[event.supervisor.id];
  if (event.type === 'server.release' || event.type === 'server.retire') return context.supervisors[event.supervisor];
  return undefined;
}

export const runtimeMachine = setup({
  types: { context: {} as RuntimeContext, events: {} as RuntimeMachineEvent, emitted: {} as RuntimeEmitted },
  actors: {
    agentActor: actorMachine,
    serverSupervisor,
    shutDown: fromPromise((): Promise<void> => Promise.reject(new Error('the runtime machine\'s "shutDown" actor was not provided'))),
  },
  guards: {
    hasSupervisor: ({ context, event }) => supervisorOf(context, event) !== undefined,
    // Empty, and no acquire was forwarded to it since it said so.
    isSupervisorDone: ({ context, event }) =>
      event.type === 'supervisor.empty' && context.supervisors[event.id]?.acquires === event.acquires,
  },
  actions: {
    spawnActor: assign({
      actors: ({ context, event, spawn }) =>
        event.type === 'actor.spawn'
          ? { ...context.actors, [event.id]: spawn('agentActor', { id: event.id, systemId: event.systemId, input: event.input }) }
          : context.actors,
    }),
    tellSpawned: emit(({ context, event }): RuntimeEmitted => {
      const id = event.type === 'actor.spawn' ? event.id : '';
      // Spawned by spawnActor just before, in the same transition.
      const ref = context.actors[id] as AnyActorRef;
      return { type: 'actor.spawned', id, ref };
    }),
    stopActor: stopChild(({ event }) => (event.type === 'actor.stop' ? event.id : '')),
    forgetActor: assign({
      actors: ({ context, event }) => {
        if (event.type !== 'actor.stop') return context.actors;
        const { [event.id]: _gone, ...rest } = context.actors;
        return rest;
      },
    }),
    ensureSupervisor: assign({
      supervisors: ({ context, event, spawn }) => {
        if (event.type !== 'server.acquire') return context.supervisors;
        const { id, input } = event.supervisor;
        const entry = context.supervisors[id];
        const ref = entry?.ref ?? spawn('serverSupervisor', { id, systemId: id, input });
        return { ...context.supervisors, [id]: { ref, acquires: (entry?.acquires ?? 0) + 1 } };
      },
    }),
    // The request goes on as it came: the supervisor answers its replyTo.
    forwardToSupervisor: sendTo(
      ({ context, event }) => supervisorOf(context, event)?.ref ?? '',
      ({ event }) => event,
    ),
    // No supervisor: nothing of it is held any more.
    replyNotHeld: sendTo(
      ({ event }) => (event.type === 'server.release' ? event.replyTo : ''),
      ({ event }): SupervisorReply => ({
        type: 'server.released',
        key: event.type === 'server.release' ? event.key : '',
        last: false,
        holders: 0,
      }),
    ),
    stopSupervisor: stopChild(({ event }) => (event.type === 'supervisor.empty' ? event.id : '')),
    forgetSupervisor: assign({
      supervisors: ({ context, event }) => {
        if (event.type !== 'supervisor.empty') return context.supervisors;
        const { [event.id]: _gone, ...rest } = context.supervisors;
        return rest;
      },
    }),
  },
}).createMachine({
  id: 'runtime',
  context: { actors: {}, supervisors: {} },
  initial: 'running',
  // These hold while the runtime shuts down too: an activation under way finishes (and is then
  // deactivated like every other), and actors and servers wind down.
  on: {
    'actor.spawn': { actions: ['spawnActor', 'tellSpawned'] },
    'actor.stop': { actions: ['stopActor', 'forgetActor'] },
    'server.acquire': { actions: ['ensureSupervisor', 'forwardToSupervisor'] },
    'server.release': [{ guard: 'hasSupervisor', actions: 'forwardToSupervisor' }, { actions: 'replyNotHeld' }],
    'server.retire': { guard: 'hasSupervisor', actions: 'forwardToSupervisor' },
    'supervisor.empty': { guard: 'isSupervisorDone', actions: ['stopSupervisor', 'forgetSupervisor'] },
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
