/**
 * A model-based test against the real stdio fixture: random interleavings of start, stop, call,
 * crash, hang, idle and reconnect. After every command the state is one of the five and at most one
 * process group of the server exists; at the end of each run every call has ended exactly once, no
 * process is left, and the host's process and pipe handles are back where they started.
 *
 * In `npm test` at most about 200 commands; `npm run reliability` (MCP_ACTORS_RELIABILITY_FULL=1)
 * runs a thousand. The seed is printed; MCP_ACTORS_MODEL_SEED=<seed> replays a run.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { retireReaper } from '../../src/actors/process-groups.js';
import { McpClient } from '../../src/client/mcp-client.js';
import type { McpServerConfig } from '../../src/config/server-config.js';
import { ServerState } from '../../src/machines/server-states.js';
import { fixtureServerConfig } from '../../src/testing/fixture.js';
import { openHandles, spawnedProcesses } from '../../src/testing/index.js';
import { expectAllGone } from '../support/processes.js';
import { record, Settlements } from './support/record.js';

const FULL = process.env.MCP_ACTORS_RELIABILITY_FULL === '1';
const RUNS = FULL ? 95 : 14;
const MAX_COMMANDS = 25;
const IDLE_STOP_MS = 400;

interface Real {
  readonly client: McpClient;
  readonly calls: Settlements;
  readonly pids: Set<number>;
  commands: number;
}
type Command = fc.AsyncCommand<object, Real>;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function check(real: Real): Promise<void> {
  real.commands += 1;
  expect(Object.values(ServerState)).toContain(real.client.state);
  expect(spawnedProcesses().groups.length).toBeLessThanOrEqual(1);
}

const command = (name: string, run: (real: Real) => Promise<unknown> | void): fc.Arbitrary<Command> =>
  fc.constant({
    check: () => true,
    async run(_model: object, real: Real) {
      await run(real);
      await pause(10);
      await check(real);
    },
    toString: () => name,
  });

const commands = [
  command('start', (real) => void real.calls.track(real.client.start({ timeoutMs: 5_000 }))),
  command('stop', (real) => real.calls.track(real.client.stop())),
  command('call', (real) => void real.calls.track(real.client.callTool('echo', { message: 'x' }, { timeoutMs: 5_000 }))),
  command('slowCall', (real) => void real.calls.track(real.client.callTool('sleep', { ms: 150 }, { timeoutMs: 5_000 }))),
  command('crash', (real) => void real.calls.track(real.client.callTool('crash', { code: 1 }, { timeoutMs: 5_000 }))),
  command('hang', (real) => void real.calls.track(real.client.callTool('hang', {}, { timeoutMs: 300 }))),
  command('idle', () => pause(IDLE_STOP_MS + 150)),
  command('reconnect', (real) => void real.calls.track(real.client.reconnect({ timeoutMs: 5_000 }))),
];

describe('the supervised stdio server as a model', () => {
  it('stays sane under random interleavings against the real fixture', { timeout: FULL ? 900_000 : 120_000 }, async () => {
    const seed = Number(process.env.MCP_ACTORS_MODEL_SEED ?? Math.floor(Math.random() * 2 ** 31));
    console.log(`model-stdio: seed ${seed} (MCP_ACTORS_MODEL_SEED=${seed} replays it), ${RUNS} runs of up to ${MAX_COMMANDS} commands`);
    const before = openHandles();
    let total = 0;
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: MAX_COMMANDS, size: 'max' }), async (cmds) => {
        const config = fixtureServerConfig({
          name: 'model',
          extra: {
            idleStopMs: IDLE_STOP_MS,
            maxRestarts: 1_000,
            periodMs: 60_000,
            shutdownTimeoutMs: 500,
            callTimeoutMs: 5_000,
            backoff: { initialMs: 20, maxMs: 100, factor: 2, jitter: 0 },
          },
        }) as McpServerConfig;
        const client = new McpClient(config);
        const real: Real = { client, calls: new Settlements(), pids: new Set(), commands: 0 };
        client.state$.subscribe(() => {
          const pid = client.status().pid;
          if (pid !== undefined) real.pids.add(pid);
        });
        try {
          await fc.asyncModelRun(() => ({ model: {}, real }), cmds);
        } finally {
          await client.dispose();
          // Calls still waiting settle within their own deadlines.
          for (let i = 0; i < 100 && !real.calls.allOnce(); i++) await pause(50);
          total += real.commands;
        }
        expect(real.calls.allOnce(), real.calls.codes().join(', ')).toBe(true);
        await expectAllGone([...real.pids], [...real.pids]);
        expect(spawnedProcesses().groups).toEqual([]);
      }),
      { seed, numRuns: RUNS, endOnFailure: true },
    );
    await retireReaper();
    const after = openHandles();
    for (const kind of ['ProcessWrap', 'PipeWrap']) expect(after[kind] ?? 0, kind).toBeLessThanOrEqual(before[kind] ?? 0);
    console.log(`model-stdio: ${total} commands in ${RUNS} runs`);
    record('model-stdio', `seed ${seed}: ${total} commands in ${RUNS} runs; every call ended once, states valid, no orphan, process/pipe handles flat`, Date.now() - started);
  });
});
