/**
 * A model-based test against the real stdio fixture: random interleavings of start, stop, call,
 * crash, hang, idle and reconnect. After every command the state is one of the five and at most one
 * process group of the server exists; at the end of each run every call has ended exactly once, no
 * process is left, and the host's process and pipe handles are back where they started. Leaks are
 * looked for three ways: the listeners on a caller's long-lived AbortSignal (every call is given
 * it) are back to none after each run; the host process's own listeners (exit, signals) are the
 * same at the end of the first third of the runs and at the end; and the heap after gc (objects, not compiled code) at the end
 * is within HEAP_TOLERANCE of that point — less than a leak of 1 KiB per command would add over
 * the last two thirds (judged in the full run; see HEAP_TOLERANCE).
 *
 * MCP_ACTORS_MODEL_LEAK=<bytes> makes every command keep that many bytes, to see the heap check
 * fail: with 1024 (seed 1991838550) it grew +114 KiB over 106 commands and failed, against
 * +21 KiB without.
 *
 * Run directly (`npx vitest run test/reliability/model-stdio.test.ts`), at most about 200 commands;
 * `npm run reliability` (MCP_ACTORS_RELIABILITY_FULL=1), which CI runs, a thousand. `npm test`
 * leaves it out (vitest.config.ts). The seed is printed; MCP_ACTORS_MODEL_SEED=<seed> replays a run.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { retireReaper } from '../../src/process/process-groups.js';
import { McpClient } from '../../src/client/mcp-client.js';
import type { McpServerConfig } from '../../src/config/server-config.js';
import { ServerState } from '../../src/server/server-states.js';
import { fixtureServerConfig } from '../../src/testing/fixture.js';
import { listenerCount, openHandles, retainedHeap, spawnedProcesses } from '../../src/testing/index.js';
import { expectAllGone } from '../support/processes.js';
import { record, Settlements } from './support/record.js';

const FULL = process.env.MCP_ACTORS_RELIABILITY_FULL === '1';
const RUNS = Number(process.env.MCP_ACTORS_MODEL_RUNS ?? (FULL ? 95 : 8));
const MAX_COMMANDS = 25;
const IDLE_STOP_MS = 400;
/**
 * Below what 1 KiB per command over the last two thirds adds (about 700 KiB in the full run; its
 * noise reached +60 KiB over 800 commands). The heap is asserted only in the full run: over the
 * 90-110 commands after the first third of an `npm test` run, the noise on Node 22 and 24 reached
 * -129 and +168 KiB (CI), as much as such a leak would add, so there it is measured and printed,
 * not judged. MCP_ACTORS_MODEL_LEAK (the check's own test) asserts it at 64 KiB at any size.
 */
const HEAP_TOLERANCE = (FULL ? 192 : 64) * 1024;
const JUDGE_HEAP = FULL || Number(process.env.MCP_ACTORS_MODEL_LEAK ?? 0) > 0;
const LEAK_BYTES = Number(process.env.MCP_ACTORS_MODEL_LEAK ?? 0);
const leaked: number[][] = [];

/** What the heap retains after gc, compiled code left out (the JIT's growth is not a leak). */
async function heapAfterGc(): Promise<number> {
  // Three a moment apart, the least kept: a timer or a message in flight can add some tens of KiB.
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    await pause(60);
    least = Math.min(least, (await retainedHeap()).objects);
  }
  return least;
}

const PROCESS_EVENTS = ['exit', 'beforeExit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'uncaughtException', 'unhandledRejection', 'warning'] as const;
const processListeners = (): Record<string, number> =>
  Object.fromEntries(PROCESS_EVENTS.map((event) => [event, process.listenerCount(event)]));

/** A caller's signal that lives across every run: a call that forgets its listener leaves it here. */
const caller = new AbortController();
const signal = caller.signal;

interface Real {
  readonly client: McpClient;
  readonly calls: Settlements;
  readonly pids: Set<number>;
  commands: number;
}
type Command = fc.AsyncCommand<object, Real>;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const modelConfig = (): McpServerConfig =>
  fixtureServerConfig({
    name: 'model',
    extra: {
      idleStopMs: IDLE_STOP_MS,
      maxRestarts: 1_000,
      periodMs: 60_000,
      shutdownTimeoutMs: 500,
      callTimeoutMs: 5_000,
      backoff: { initialMs: 20, maxMs: 100, factor: 2, jitter: 0 },
    },
  });

function realOf(client: McpClient): Real {
  const real: Real = { client, calls: new Settlements(), pids: new Set(), commands: 0 };
  client.state$.subscribe(() => {
    const pid = client.status().pid;
    if (pid !== undefined) real.pids.add(pid);
  });
  return real;
}

async function settle(real: Real): Promise<void> {
  await real.client.dispose();
  // Calls still waiting settle within their own deadlines.
  for (let i = 0; i < 100 && !real.calls.allOnce(); i++) await pause(50);
}

/** Every command once, before anything is measured: what is made once, on first use, is made. */
async function warmUp(): Promise<void> {
  const real = realOf(new McpClient(modelConfig()));
  for (const [, run] of [...steps, ...steps]) {
    await run(real);
    await pause(10);
  }
  await settle(real);
  await expectAllGone([...real.pids], [...real.pids]);
}

function check(real: Real): void {
  real.commands += 1;
  // An array of doubles: 8 bytes an element on the heap, so LEAK_BYTES is what each command keeps.
  if (LEAK_BYTES > 0) leaked.push(new Array<number>(Math.ceil(LEAK_BYTES / 8)).fill(real.commands + 0.5));
  expect(Object.values(ServerState)).toContain(real.client.state);
  expect(spawnedProcesses().groups.length).toBeLessThanOrEqual(1);
}

const command = (name: string, run: (real: Real) => Promise<unknown> | undefined): fc.Arbitrary<Command> =>
  fc.constant({
    check: () => true,
    async run(_model: object, real: Real) {
      await run(real);
      await pause(10);
      check(real);
    },
    toString: () => name,
  });

const steps: [string, (real: Real) => Promise<unknown> | undefined][] = [
  ['start', (real) => void real.calls.track(real.client.start({ timeoutMs: 5_000, signal }))],
  ['stop', (real) => real.calls.track(real.client.stop())],
  ['call', (real) => void real.calls.track(real.client.callTool('echo', { message: 'x' }, { timeoutMs: 5_000, signal }))],
  ['slowCall', (real) => void real.calls.track(real.client.callTool('sleep', { ms: 150 }, { timeoutMs: 5_000, signal }))],
  ['crash', (real) => void real.calls.track(real.client.callTool('crash', { code: 1 }, { timeoutMs: 5_000, signal }))],
  ['hang', (real) => void real.calls.track(real.client.callTool('hang', {}, { timeoutMs: 300, signal }))],
  ['idle', () => pause(IDLE_STOP_MS + 150)],
  ['reconnect', (real) => void real.calls.track(real.client.reconnect({ timeoutMs: 5_000, signal }))],
];
const commands = steps.map(([name, run]) => command(name, run));

describe('the supervised stdio server as a model', () => {
  it('stays sane under random interleavings against the real fixture', { timeout: FULL ? 900_000 : 600_000 }, async () => {
    const seed = Number(process.env.MCP_ACTORS_MODEL_SEED ?? Math.floor(Math.random() * 2 ** 31));
    console.log(`model-stdio: seed ${seed} (MCP_ACTORS_MODEL_SEED=${seed} replays it), ${RUNS} runs of up to ${MAX_COMMANDS} commands`);
    await warmUp();
    const before = openHandles();
    let total = 0;
    let runs = 0;
    let third: { heap: number; listeners: Record<string, number>; commands: number } | undefined;
    let last: typeof third;
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: MAX_COMMANDS, size: 'max' }), async (cmds) => {
        const real = realOf(new McpClient(modelConfig()));
        try {
          await fc.asyncModelRun(() => ({ model: {}, real }), cmds);
        } finally {
          await settle(real);
          total += real.commands;
        }
        expect(real.calls.allOnce(), real.calls.codes().join(', ')).toBe(true);
        expect(listenerCount(signal, 'abort'), "listeners left on the caller's signal").toBe(0);
        await expectAllGone([...real.pids], [...real.pids]);
        expect(spawnedProcesses().groups).toEqual([]);
        runs += 1;
        if (runs === Math.ceil(RUNS / 3)) {
          await retireReaper();
          third = { heap: await heapAfterGc(), listeners: processListeners(), commands: total };
        }
        // Measured where the first one was (inside a run, its commands still referenced), so the two compare.
        if (runs === RUNS) {
          await retireReaper();
          last = { heap: await heapAfterGc(), listeners: processListeners(), commands: total };
        }
      }),
      { seed, numRuns: RUNS, endOnFailure: true },
    );
    await retireReaper();
    const after = openHandles();
    for (const kind of ['ProcessWrap', 'PipeWrap']) expect(after[kind] ?? 0, kind).toBeLessThanOrEqual(before[kind] ?? 0);
    expect(third && last, 'the first third and the end were measured').toBeDefined();
    expect(last!.listeners, 'process listeners at the end vs after the first third').toEqual(third!.listeners);
    const heapEnd = last!.heap;
    const growth = heapEnd - third!.heap;
    const rest = total - third!.commands;
    console.log(
      `model-stdio: ${total} commands in ${RUNS} runs; heap after gc ${Math.round(third!.heap / 1024)} KiB after the first third, ${Math.round(heapEnd / 1024)} KiB at the end ` +
        `(${growth >= 0 ? '+' : ''}${Math.round(growth / 1024)} KiB over ${rest} commands, tolerance ${HEAP_TOLERANCE / 1024} KiB)`,
    );
    if (JUDGE_HEAP) {
      // The check must be able to see 1 KiB a command: the rest of the run has to be long enough.
      expect(rest * 1024, 'commands after the first third').toBeGreaterThan(1.25 * HEAP_TOLERANCE);
      expect(growth, 'heap growth after gc over the last two thirds').toBeLessThan(HEAP_TOLERANCE);
    }
    record(
      'model-stdio',
      `seed ${seed}: ${total} commands in ${RUNS} runs; every call ended once, states valid, no orphan, process/pipe handles flat, ` +
        `no listener left on the caller's signal, process listeners flat, heap after gc ${growth >= 0 ? '+' : ''}${Math.round(growth / 1024)} KiB over the last ${rest} commands`,
      Date.now() - started,
    );
  });
});
