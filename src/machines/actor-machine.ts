/**
 * An agent actor: `inactive → activating → active → deactivating → inactive`. Activation acquires
 * the servers its skills name (concurrently) and registers their tools; deactivation releases
 * them. The servers are shared by reference among the actors of one tenant and sandbox: the
 * runtime's machine owns them (see `runtime-machine.ts`). This one acquires and releases them by
 * sending `server.acquire` / `server.release` to it (its parent), naming itself as the holder, and
 * holds references to them in its context (`servers`), which the inspector shows. Pure: the work
 * is done by the `activateActor` and `deactivateActor` actors the runtime provides; they ask this
 * machine to acquire and release.
 */
import { assign, fromPromise, sendParent, setup, type AnyActorRef } from 'xstate';
import type { ChildSpawn } from './runtime-machine.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, isMcpActorsError, messageOf } from '../errors/mcp-actors-error.js';

/** What activation found: servers started, and those that could not be (not required). */
export interface ActivationReport {
  readonly servers: readonly string[];
  readonly unavailable: readonly { readonly server: string; readonly error: McpActorsError }[];
}

/** What the `activateActor` actor hands back: the report, and the server actors now held. */
export interface Activation {
  readonly report: ActivationReport;
  /** The server actors held, by server name (references: the runtime's machine owns them). */
  readonly servers: Readonly<Record<string, AnyActorRef>>;
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
  /** References to the server actors it holds while active. */
  readonly servers: Readonly<Record<string, AnyActorRef>>;
}

export type ActorEvent =
  | { readonly type: 'actor.activate' }
  | { readonly type: 'actor.deactivate' }
  /** Take a reference to the server of `key` (`spawn`: how to create it if nobody holds it yet). */
  | { readonly type: 'server.acquire'; readonly key: string; readonly spawn?: ChildSpawn | undefined }
  | { readonly type: 'server.release'; readonly key: string };

/** The name an actor holds server actors by: its systemId. */
export function holderOf(context: Pick<ActorContext, 'id'>): string {
  return `actor:${context.id}`;
}

function notProvided(name: string): never {
  throw new Error(`the actor machine's "${name}" actor was not provided; use actorMachine.provide({ actors })`);
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
  },
  actors: {
    activateActor: fromPromise<Activation, ActorMachineInput>(async () => notProvided('activateActor')),
    deactivateActor: fromPromise<void, ActorMachineInput>(async () => notProvided('deactivateActor')),
  },
  actions: {
    forgetActivation: assign({ report: undefined, servers: {} }),
    // The runtime's machine owns shared servers: this one asks it, as their holder.
    acquireServer: sendParent(({ context, event }) =>
      event.type === 'server.acquire' ? { type: 'server.acquire', key: event.key, holder: holderOf(context), spawn: event.spawn } : { type: 'actor.ignored' },
    ),
    releaseServer: sendParent(({ context, event }) =>
      event.type === 'server.release' ? { type: 'server.release', key: event.key, holder: holderOf(context) } : { type: 'actor.ignored' },
    ),
  },
}).createMachine({
  id: 'agentActor',
  context: ({ input }) => ({ name: input.name, tenant: input.tenant, id: input.id, report: undefined, error: undefined, servers: {} }),
  initial: 'inactive',
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
          actions: assign(({ event }) => ({ report: event.output.report, servers: event.output.servers, error: undefined })),
        },
        onError: {
          target: 'inactive',
          actions: assign(({ event, context }) => ({ report: undefined, servers: {}, error: activationError(context, event.error) })),
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
