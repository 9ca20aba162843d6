/**
 * An agent actor: `inactive → activating → active → deactivating → inactive`. Activation starts
 * the servers its skills name (concurrently) and registers their tools; deactivation releases
 * them. Pure: the work is done by the `activateActor` and `deactivateActor` actors the runtime
 * provides.
 */
import { assign, fromPromise, setup } from 'xstate';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, isMcpActorsError, messageOf } from '../errors/mcp-actors-error.js';

/** What activation found: servers started, and those that could not be (not required). */
export interface ActivationReport {
  readonly servers: readonly string[];
  readonly unavailable: readonly { readonly server: string; readonly error: McpActorsError }[];
}

export interface ActorMachineInput {
  readonly name: string;
  readonly tenant: string;
}

export interface ActorContext {
  readonly name: string;
  readonly tenant: string;
  readonly report: ActivationReport | undefined;
  readonly error: McpActorsError | undefined;
}

export type ActorEvent = { readonly type: 'actor.activate' } | { readonly type: 'actor.deactivate' };

function notProvided(name: string): never {
  throw new Error(`the actor machine's "${name}" actor was not provided; use actorMachine.provide({ actors })`);
}

export const actorMachine = setup({
  types: {
    context: {} as ActorContext,
    events: {} as ActorEvent,
    input: {} as ActorMachineInput,
  },
  actors: {
    activateActor: fromPromise<ActivationReport, { name: string; tenant: string }>(async () => notProvided('activateActor')),
    deactivateActor: fromPromise<void, { name: string; tenant: string }>(async () => notProvided('deactivateActor')),
  },
  actions: {
    recordActivation: assign({
      report: ({ event }) => (event as unknown as { output: ActivationReport }).output,
      error: undefined,
    }),
    recordActivationFailure: assign({
      report: undefined,
      error: ({ event, context }) => {
        const cause = (event as unknown as { error: unknown }).error;
        return isMcpActorsError(cause)
          ? cause
          : new McpActorsError(ErrorCode.ACTIVATION_FAILED, `actor "${context.name}" could not be activated: ${messageOf(cause)}`, { cause });
      },
    }),
    forgetActivation: assign({ report: undefined }),
  },
}).createMachine({
  id: 'agentActor',
  context: ({ input }) => ({ name: input.name, tenant: input.tenant, report: undefined, error: undefined }),
  initial: 'inactive',
  states: {
    inactive: {
      on: { 'actor.activate': 'activating' },
    },
    activating: {
      invoke: {
        src: 'activateActor',
        input: ({ context }) => ({ name: context.name, tenant: context.tenant }),
        onDone: { target: 'active', actions: 'recordActivation' },
        onError: { target: 'inactive', actions: 'recordActivationFailure' },
      },
    },
    active: {
      on: { 'actor.deactivate': 'deactivating' },
    },
    deactivating: {
      invoke: {
        src: 'deactivateActor',
        input: ({ context }) => ({ name: context.name, tenant: context.tenant }),
        onDone: { target: 'inactive', actions: 'forgetActivation' },
        onError: { target: 'inactive', actions: 'forgetActivation' },
      },
    },
  },
});
