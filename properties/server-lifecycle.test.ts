/**
 * The server lifecycle as a model: random sequences of start, stop, reconnect, calls, crashes,
 * failed starts and the passing of time, driven through McpClient over fake connections (a real
 * SDK Client and Server in memory). After every step the machine must be in a sane state; at the
 * end every call must have ended exactly once, with an answer or a classified error, and nothing
 * may be left running. The recovery law: between two fresh beginnings (start(), reconnect(), a
 * stop asked for, an idle stop, a transient or temporary server's normal exit) the server is spawned at most 1 + maxRestarts
 * times (the period is longer than any run), however many crashes, failed starts and calls come; and a restart is counted only
 * when the supervisor restarts, never when a call starts a server that exited normally (OTP's transient).
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpClient } from '../src/client/mcp-client.js';
import { isMcpActorsError } from '../src/errors/index.js';
import { ServerState } from '../src/server/server-states.js';
import { FakeServers, type StartBehaviour } from '../test/support/fake-server.js';

interface Real {
  client: McpClient;
  fakes: FakeServers;
  outcomes: Map<number, string[]>;
  nextId: number;
  /** `fakes.spawns` at the last fresh beginning. */
  spawnsAtReset: number;
}
type Model = { maxRestarts: number };
type Command = fc.AsyncCommand<Model, Real>;

const ANSWER_CODES = new Set(['REQUEST_TIMEOUT', 'CANCELLED', 'CONNECTION_LOST', 'SERVER_IN_ERROR', 'SERVER_STOPPED']);

const flush = async (ms = 0): Promise<void> => {
  await vi.advanceTimersByTimeAsync(ms);
};

function track(real: Real, promise: Promise<unknown>): void {
  const id = real.nextId++;
  real.outcomes.set(id, []);
  promise.then(
    () => real.outcomes.get(id)!.push('ok'),
    (error: unknown) => real.outcomes.get(id)!.push(isMcpActorsError(error) ? error.code : `untyped: ${String(error)}`),
  );
}

async function checkInvariants(model: Model, real: Real): Promise<void> {
  await flush();
  const state = real.client.state;
  expect(Object.values(ServerState)).toContain(state);
  expect(real.fakes.liveCount).toBeLessThanOrEqual(1);
  if (state === 'STOPPED' || state === 'ERROR') expect(real.fakes.liveCount).toBe(0);
  if (state === 'RUNNING') expect(real.fakes.liveCount).toBe(1);
  expect(real.client.status().restarts).toBeLessThanOrEqual(model.maxRestarts);
  expect(real.fakes.spawns - real.spawnsAtReset).toBeLessThanOrEqual(1 + model.maxRestarts);
}

const fresh = (real: Real): void => {
  real.spawnsAtReset = real.fakes.spawns;
};

const simple = (name: string, run: (real: Real) => void | Promise<void>): fc.Arbitrary<Command> =>
  fc.constant({
    check: () => true,
    async run(model: Model, real: Real) {
      await run(real);
      await checkInvariants(model, real);
    },
    toString: () => name,
  });

const commands: fc.Arbitrary<Command>[] = [
  simple('call', (real) => track(real, real.client.callTool('echo', { message: 'x' }))),
  fc
    .integer({ min: 1, max: 3_000 })
    .chain((ms) => simple(`slowCall(${ms})`, (real) => track(real, real.client.callTool('sleep', { ms }, { timeoutMs: 2_000 })))),
  simple('start', (real) => {
    if (real.client.state !== 'RUNNING' && real.client.state !== 'STARTING') fresh(real);
    track(real, real.client.start({ timeoutMs: 5_000 }));
  }),
  simple('reconnect', (real) => {
    fresh(real);
    track(real, real.client.reconnect({ timeoutMs: 5_000 }));
  }),
  simple('stop', async (real) => {
    fresh(real);
    const stopped = real.client.stop();
    await flush();
    await stopped;
    expect(real.client.state).toBe('STOPPED');
    expect(real.fakes.liveCount).toBe(0);
  }),
  simple('stop, with a call made while it stops', async (real) => {
    const stopping = !['STOPPED', 'ERROR'].includes(real.client.state);
    fresh(real);
    const stopped = real.client.stop();
    track(real, real.client.callTool('echo', { message: 'during stop' }));
    await flush();
    await stopped; // must resolve: a call made meanwhile may not start the server again
    if (stopping) {
      expect(real.client.state).toBe('STOPPED');
      expect(real.fakes.liveCount).toBe(0);
    }
  }),
  fc.boolean().chain((normal) => simple(`crash(${normal ? 'exit 0' : 'abnormal'})`, (real) => void real.fakes.crash(normal))),
  fc
    .array(fc.constantFrom<StartBehaviour>('fail', 'hang', 'spawn-fail', 'ok'), { minLength: 1, maxLength: 4 })
    .chain((script) => simple(`nextStarts(${script.join(',')})`, (real) => void real.fakes.script.push(...script))),
  fc.integer({ min: 1, max: 4_000 }).chain((ms) => simple(`advance(${ms})`, () => flush(ms))),
];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the server lifecycle as a model', () => {
  it('stays sane under any sequence of commands, and every call ends exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('permanent', 'transient', 'temporary' as const),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom(0, 1_500),
        fc.commands(commands, { maxCommands: 25 }),
        async (restart, maxRestarts, idleStopMs, cmds) => {
          const fakes = new FakeServers();
          const client = new McpClient(
            {
              name: 'model',
              command: 'fake',
              restart,
              maxRestarts,
              periodMs: 1_000_000_000,
              idleStopMs,
              startTimeoutMs: 1_000,
              callTimeoutMs: 5_000,
              backoff: { initialMs: 100, maxMs: 800, factor: 2, jitter: 0.5 },
            },
            { actors: { connectServer: fakes.connectServer } },
          );
          const real: Real = { client, fakes, outcomes: new Map(), nextId: 0, spawnsAtReset: 0 };
          // An idle stop is a fresh beginning too, and so is a transient or temporary server's normal
          // exit: as in OTP, the call that starts it again is a start, not a restart.
          // The law of restarts: only the supervisor restarts (deciding -> waiting counts one); a start
          // on use after a clean exit or an idle stop never does, and never gives up for the intensity.
          let previous = client.actor.getSnapshot();
          const miscounted: string[] = [];
          client.actor.subscribe((snapshot) => {
            if (snapshot.matches('stopping') && previous.matches('running') && snapshot.context.afterStop === 'stopped') fresh(real);
            if (snapshot.context.restartCount > previous.context.restartCount && !snapshot.matches({ starting: 'waiting' })) {
              miscounted.push(`restart counted on ${JSON.stringify(previous.value)} -> ${JSON.stringify(snapshot.value)}`);
            }
            if (previous.matches('stopped') && snapshot.matches('error')) miscounted.push('a start on use from STOPPED gave up');
            previous = snapshot;
          });
          const model: Model = { maxRestarts };
          await fc.asyncModelRun(() => ({ model, real }), cmds);

          const disposed = client.dispose();
          await flush(60_000);
          await disposed;
          await flush(60_000);
          expect(fakes.liveCount).toBe(0);
          for (const [, outcome] of real.outcomes) {
            expect(outcome).toHaveLength(1);
            const [result] = outcome;
            if (result !== 'ok') expect(ANSWER_CODES).toContain(result);
          }
          if (restart === 'temporary') expect(client.status().restarts).toBe(0);
          expect(miscounted).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });
});
