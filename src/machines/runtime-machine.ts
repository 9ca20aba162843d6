/**
 * The runtime's own actor: the root of the supervision tree that the Stately inspector draws
 * (runtime → actors → calls, runtime → servers). `running → shuttingDown → stopped`.
 *
 * It owns the actors and server actors of the tree: they join it as its children (`parent`), and
 * it is the one that stops them — on `child.stop`, once their owner (an `ActorHandle`, an
 * `McpClient`) has wound them down. A server actor is shared by reference among the actors of one
 * tenant and sandbox, so it belongs to the runtime, not to the actor that happened to start it.
 */
import { fromPromise, setup, stopChild, type AnyActorRef } from 'xstate';

/** Asks the parent of `child` to stop it: what an owner sends once its actor has nothing left to do. */
export interface ChildStopEvent {
  readonly type: 'child.stop';
  readonly child: AnyActorRef;
}

export type RuntimeMachineEvent = { readonly type: 'runtime.shutdown' } | ChildStopEvent;

export const runtimeMachine = setup({
  types: { events: {} as RuntimeMachineEvent },
  actors: {
    shutDown: fromPromise<void>(async () => {
      throw new Error('the runtime machine\'s "shutDown" actor was not provided');
    }),
  },
}).createMachine({
  id: 'runtime',
  initial: 'running',
  on: {
    'child.stop': { actions: stopChild(({ event }) => event.child) },
  },
  states: {
    running: { on: { 'runtime.shutdown': 'shuttingDown' } },
    shuttingDown: {
      invoke: { src: 'shutDown', onDone: 'stopped', onError: 'stopped' },
    },
    stopped: { type: 'final' },
  },
});
