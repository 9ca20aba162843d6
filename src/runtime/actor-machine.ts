/**
 * An agent actor: `inactive → activating → active → deactivating → inactive`. Activation acquires
 * the servers its skills name (concurrently) and registers their tools; deactivation releases
 * them. The servers are shared by reference among the actors of one tenant and sandbox: the server
 * supervisor of that tenant and sandbox owns them (see `server-supervisor.ts`). This one acquires
 * and releases them by sending `server.acquire` / `server.release` to its parent (the runtime's
 * machine, which forwards them to the supervisor), naming itself as the holder and `replyTo`; the
 * answers (`server.acquired`, `server.refused`, `server.released`) come back to it as events, and
 * it lists the servers it holds in its context (`servers`: each one's actor id and key), which the
 * inspector shows. It also emits each answer (`actor.on('server.acquired', …)`), which is how the
 * work that asked learns of it. Pure: the work is done by the `activateActor` and
 * `deactivateActor` actors the runtime provides; they ask this machine to acquire and release.
 */
import { assign, emit, fromPromise, sendParent, setup } from 'xstate';
import type { ChildSpawn } from './child-spawn.js';
import type { SupervisorInput, SupervisorReply } from './server-supervisor.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, isMcpActorsError, messageOf } from '../errors/mcp-actors-error.js';

/** What activation found: servers started, and those that could not be (not required). */
export interface ActivationReport {
  readonly servers: readonly string[];
  readonly unavailable: readonly { readonly server: string; readonly error: McpActorsError }[];
}

/** What the `activateActor` actor hands back. */
export interface Activation {
  readonly report: ActivationReport;
}

/** A server an agent actor holds: its actor's id (its name in the inspector) and key (server, tenant, sandbox). */
export interface HeldServerRef {
  readonly id: string;
  readonly key: string;
}

export interface ActorMachineInput {
  readonly name: string;
  readonly tenant: string;
  /** The actor's unique id within its runtime (`<name>:<tenant>:<n>`). */
  readonly id: string;
}

export interface ActorContext {
  readonly name: string;
  readonly tenant: string;
  readonly id: string;
  readonly report: ActivationReport | undefined;
  readonly error: McpActorsError | undefined;
  /** The server actors it holds (one entry per reference), as their supervisor's answers said. */
  readonly servers: readonly HeldServerRef[];
}

export type ActorEvent =
  | { readonly type: 'actor.activate' }
  | { readonly type: 'actor.deactivate' }
  /** Take a reference to the server of `key` from `supervisor` (`spawn`: how to create it if nobody holds it yet). */
  | {
      readonly type: 'server.acquire';
      readonly key: string;
      readonly supervisor: { readonly id: string; readonly input: SupervisorInput };
      readonly spawn?: ChildSpawn | undefined;
    }
  | { readonly type: 'server.release'; readonly key: string; readonly supervisor: string }
  /** The supervisor's answers. */
  | SupervisorReply;

/** The name an actor holds server actors by: its systemId. */
export function holderOf(context: Pick<ActorContext, 'id'>): string {
  return `actor:${context.id}`;
}

function notProvided(name: string): Promise<never> {
  return Promise.reject(new Error(`the actor machine's "${name}" actor was not provided; use actorMachine.provide({ actors })`));
}

function activationError(context: ActorContext, cause: unknown): McpActorsError {
  return isMcpActorsError(cause)
    ? cause
    : new McpActorsError(ErrorCode.ACTIVATION_FAILED, `actor "${context.name}" could not be activated: ${messageOf(cause)}`, { cause });
}

export const actorMachine = setup({
  types: {
    context: {} as ActorContext,
    events: {} as ActorEvent,
    input: {} as ActorMachineInput,
    emitted: {} as SupervisorReply,
  },
  actors: {
    activateActor: fromPromise<Activation, ActorMachineInput>(() => notProvided('activateActor')),
    deactivateActor: fromPromise((_: { input: ActorMachineInput }): Promise<void> => notProvided('deactivateActor')),
  },
  actions: {
    forgetActivation: assign({ report: undefined }),
    // A supervisor owns shared servers: this one asks for them (through its parent), as their holder.
    acquireServer: sendParent(({ context, event, self }) =>
      event.type === 'server.acquire'
        ? {
            type: 'server.acquire',
            key: event.key,
            holder: holderOf(context),
            replyTo: self,
            supervisor: event.supervisor,
            spawn: event.spawn,
          }
        : { type: 'actor.ignored' },
    ),
    releaseServer: sendParent(({ context, event, self }) =>
      event.type === 'server.release'
        ? { type: 'server.release', key: event.key, holder: holderOf(context), replyTo: self, supervisor: event.supervisor }
        : { type: 'actor.ignored' },
    ),
    holdServer: assign({
      servers: ({ context, event }) =>
        event.type === 'server.acquired' ? [...context.servers, { id: event.ref.id, key: event.key }] : context.servers,
    }),
    letGoOfServer: assign({
      servers: ({ context, event }) => {
        if (event.type !== 'server.released') return context.servers;
        const at = context.servers.findIndex((held) => held.key === event.key);
        return at < 0 ? context.servers : context.servers.toSpliced(at, 1);
      },
    }),
    // The work that asked (activateActor, deactivateActor) is told by the emitted answer.
    tellAnswer: emit(({ event }): SupervisorReply => {
      if (event.type === 'server.acquired' || event.type === 'server.refused' || event.type === 'server.released') return event;
      throw new Error(`tellAnswer runs for a supervisor's answer, not for ${event.type}`);
    }),
  },
}).createMachine({
  id: 'agentActor',
  context: ({ input }) => ({ name: input.name, tenant: input.tenant, id: input.id, report: undefined, error: undefined, servers: [] }),
  initial: 'inactive',
  // The answers are taken in any state: a late one still tells what is held.
  on: {
    'server.acquired': { actions: ['holdServer', 'tellAnswer'] },
    'server.refused': { actions: 'tellAnswer' },
    'server.released': { actions: ['letGoOfServer', 'tellAnswer'] },
  },
  states: {
    inactive: {
      on: { 'actor.activate': 'activating' },
    },
    activating: {
      on: {
        'server.acquire': { actions: 'acquireServer' },
        // A failed activation lets go of what it acquired.
        'server.release': { actions: 'releaseServer' },
      },
      invoke: {
        src: 'activateActor',
        input: ({ context }) => ({ name: context.name, tenant: context.tenant, id: context.id }),
        onDone: {
          target: 'active',
          actions: assign(({ event }) => ({ report: event.output.report, error: undefined })),
        },
        onError: {
          target: 'inactive',
          actions: assign(({ event, context }) => ({ report: undefined, error: activationError(context, event.error) })),
        },
      },
    },
    active: {
      on: { 'actor.deactivate': 'deactivating' },
    },
    deactivating: {
      on: { 'server.release': { actions: 'releaseServer' } },
      invoke: {
        src: 'deactivateActor',
        input: ({ context }) => ({ name: context.name, tenant: context.tenant, id: context.id }),
        onDone: { target: 'inactive', actions: 'forgetActivation' },
        onError: { target: 'inactive', actions: 'forgetActivation' },
      },
    },
  },
});
