/**
 * The runtime's own actor: the root of the supervision tree that the Stately inspector draws
 * (runtime → actors → servers and calls). `running → shuttingDown → stopped`.
 */
import { fromPromise, setup } from 'xstate';

export const runtimeMachine = setup({
  types: { events: {} as { readonly type: 'runtime.shutdown' } },
  actors: {
    shutDown: fromPromise<void>(async () => {
      throw new Error('the runtime machine\'s "shutDown" actor was not provided');
    }),
  },
}).createMachine({
  id: 'runtime',
  initial: 'running',
  states: {
    running: { on: { 'runtime.shutdown': 'shuttingDown' } },
    shuttingDown: {
      invoke: { src: 'shutDown', onDone: 'stopped', onError: 'stopped' },
    },
    stopped: { type: 'final' },
  },
});
