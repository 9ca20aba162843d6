/**
 * The server supervisor of one tenant and sandbox: the actor that owns the server actors the
 * agent actors of that tenant and sandbox share. An XState actor has one parent, and a shared server
 * is held by several agent actors at once, so none of them can be its parent: this one is, and it
 * keeps who holds each (by reference count). The runtime's machine spawns one supervisor per
 * (tenant, sandbox) on the first acquire and stops it once it has no server left.
 *
 * Ask, then be told — every request carries `replyTo` and is answered by an event to it:
 * - `server.acquire` → `server.acquired` (with the server actor's ref; the actor is spawned for the
 *   first holder when the request says how, `spawn`) or `server.refused` (nobody holds it and the
 *   request did not say how to spawn it);
 * - `server.release` → `server.released` (`last: true` when that was the last holder: the asker's
 *   client then stops the server, and sends `server.retire`, which stops the child). A child stopped
 *   before its process is closed would leave the process behind.
 *
 * Pure: it spawns and stops children and keeps counts; the processes are the clients' business.
 */
import { assign, sendParent, sendTo, setup, stopChild, type AnyActorLogic, type AnyActorRef } from 'xstate';
import type { ChildSpawn } from './child-spawn.js';

/** Which tenant and sandbox a supervisor serves. */
export interface SupervisorInput {
  readonly tenant: string;
  /** The sandbox's short id, when its servers are started for one. */
  readonly sandboxId: string | undefined;
}

/** One server actor and the agent actors that hold it (by their systemIds; one entry per reference). */
export interface SupervisedServer {
  readonly ref: AnyActorRef;
  readonly holders: readonly string[];
}

export interface SupervisorContext extends SupervisorInput {
  /** Server actors by key (server, tenant, sandbox). */
  readonly servers: Readonly<Record<string, SupervisedServer>>;
  /** Server actors whose last holder let go, by child id, until their client has closed them. */
  readonly retiring: readonly string[];
  /** Acquires answered so far: the runtime stops an empty supervisor only if it forwarded no more. */
  readonly acquires: number;
}

export type SupervisorEvent =
  /** `holder` takes a reference to the server of `key`; `spawn` says how to create it if nobody holds it yet. */
  | {
      readonly type: 'server.acquire';
      readonly key: string;
      readonly holder: string;
      readonly replyTo: AnyActorRef;
      readonly spawn?: ChildSpawn | undefined;
    }
  | { readonly type: 'server.release'; readonly key: string; readonly holder: string; readonly replyTo: AnyActorRef }
  /** The server actor's process is closed: stop the child. */
  | { readonly type: 'server.retire'; readonly actor: AnyActorRef };

/** The answers a supervisor sends to `replyTo`. */
export type SupervisorReply =
  | { readonly type: 'server.acquired'; readonly key: string; readonly ref: AnyActorRef; readonly holders: number }
  | { readonly type: 'server.refused'; readonly key: string }
  | { readonly type: 'server.released'; readonly key: string; readonly last: boolean; readonly holders: number };

/** Told to the parent (the runtime's machine) when the last server actor is gone. */
export interface SupervisorEmpty {
  readonly type: 'supervisor.empty';
  readonly id: string;
  readonly acquires: number;
}

/** `servers:acme`, or `servers:acme:<sandbox>` for a sandbox's servers: its id, systemId and label. */
export function supervisorLabel(tenant: string, sandboxId: string | undefined): string {
  return `servers:${tenant}${sandboxId ? `:${sandboxId}` : ''}`;
}

function without(servers: SupervisorContext['servers'], key: string): SupervisorContext['servers'] {
  const { [key]: _gone, ...rest } = servers;
  return rest;
}

export const serverSupervisor = setup({
  types: { context: {} as SupervisorContext, events: {} as SupervisorEvent, input: {} as SupervisorInput },
  guards: {
    isServerHeld: ({ context, event }) => event.type === 'server.acquire' && context.servers[event.key] !== undefined,
    canSpawnServer: ({ event }) => event.type === 'server.acquire' && event.spawn !== undefined,
    isLastHolder: ({ context, event }) => {
      if (event.type !== 'server.release') return false;
      const holders = context.servers[event.key]?.holders ?? [];
      return holders.length === 1 && holders[0] === event.holder;
    },
    // After this child is stopped, nothing is left (held or stopping).
    isLastToRetire: ({ context, event }) => {
      if (event.type !== 'server.retire') return false;
      const held = Object.values(context.servers).filter((server) => server.ref !== event.actor);
      return held.length === 0 && context.retiring.every((id) => id === event.actor.id);
    },
  },
  actions: {
    countAcquire: assign({ acquires: ({ context }) => context.acquires + 1 }),
    addHolder: assign({
      servers: ({ context, event }) => {
        if (event.type !== 'server.acquire') return context.servers;
        const held = context.servers[event.key];
        if (!held) return context.servers;
        return { ...context.servers, [event.key]: { ref: held.ref, holders: [...held.holders, event.holder] } };
      },
    }),
    spawnServer: assign({
      servers: ({ context, event, spawn }) => {
        if (event.type !== 'server.acquire' || !event.spawn) return context.servers;
        const { logic, id, systemId, input } = event.spawn;
        // XState's types allow an `id` only for logic named in setup; at run time `spawn` takes it
        // for any logic (a server's machine is provided per client, so it cannot be named there).
        const spawnWithId = spawn as unknown as (
          logic: AnyActorLogic,
          options: { id: string; systemId: string; input: unknown },
        ) => AnyActorRef;
        return { ...context.servers, [event.key]: { ref: spawnWithId(logic, { id, systemId, input }), holders: [event.holder] } };
      },
    }),
    replyAcquired: sendTo(
      ({ event }) => (event.type === 'server.acquire' ? event.replyTo : ''),
      ({ context, event }): SupervisorReply => {
        const key = event.type === 'server.acquire' ? event.key : '';
        const held = context.servers[key];
        return held ? { type: 'server.acquired', key, ref: held.ref, holders: held.holders.length } : { type: 'server.refused', key };
      },
    ),
    replyRefused: sendTo(
      ({ event }) => (event.type === 'server.acquire' ? event.replyTo : ''),
      ({ event }): SupervisorReply => ({ type: 'server.refused', key: event.type === 'server.acquire' ? event.key : '' }),
    ),
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
    // The last holder let go: the server is no longer shared, and stops (its client closes it, then retires it).
    forgetServer: assign(({ context, event }) => {
      if (event.type !== 'server.release') return {};
      const held = context.servers[event.key];
      return { servers: without(context.servers, event.key), retiring: held ? [...context.retiring, held.ref.id] : context.retiring };
    }),
    replyReleased: sendTo(
      ({ event }) => (event.type === 'server.release' ? event.replyTo : ''),
      ({ context, event }): SupervisorReply => {
        const key = event.type === 'server.release' ? event.key : '';
        return { type: 'server.released', key, last: false, holders: context.servers[key]?.holders.length ?? 0 };
      },
    ),
    replyLastReleased: sendTo(
      ({ event }) => (event.type === 'server.release' ? event.replyTo : ''),
      ({ event }): SupervisorReply => ({
        type: 'server.released',
        key: event.type === 'server.release' ? event.key : '',
        last: true,
        holders: 0,
      }),
    ),
    stopServer: stopChild(({ event }) => (event.type === 'server.retire' ? event.actor : '')),
    // A server retired while still held (the runtime shuts down) is forgotten too.
    forgetRetired: assign(({ context, event }) => {
      if (event.type !== 'server.retire') return {};
      const kept = Object.entries(context.servers).filter(([, server]) => server.ref !== event.actor);
      return { servers: Object.fromEntries(kept), retiring: context.retiring.filter((id) => id !== event.actor.id) };
    }),
    reportEmpty: sendParent(({ context, self }): SupervisorEmpty => ({
      type: 'supervisor.empty',
      id: self.id,
      acquires: context.acquires,
    })),
  },
}).createMachine({
  id: 'serverSupervisor',
  context: ({ input }) => ({ tenant: input.tenant, sandboxId: input.sandboxId, servers: {}, retiring: [], acquires: 0 }),
  on: {
    'server.acquire': [
      { guard: 'isServerHeld', actions: ['countAcquire', 'addHolder', 'replyAcquired'] },
      { guard: 'canSpawnServer', actions: ['countAcquire', 'spawnServer', 'replyAcquired'] },
      { actions: ['countAcquire', 'replyRefused'] },
    ],
    'server.release': [
      { guard: 'isLastHolder', actions: ['forgetServer', 'replyLastReleased'] },
      { actions: ['removeHolder', 'replyReleased'] },
    ],
    'server.retire': [
      { guard: 'isLastToRetire', actions: ['stopServer', 'forgetRetired', 'reportEmpty'] },
      { actions: ['stopServer', 'forgetRetired'] },
    ],
  },
});
