// What OS confinement (bubblewrap) costs: cold start (spawn to tools listed) and sequential call
// rate of the same server confined and unconfined, in alternating rounds so both see the same
// machine load. Targets (issue 15): confined cold start <= 1.15x, call rate >= 0.95x.
// Run after a build: `npm run build && node bench/confine.mjs` (BENCH_ROUNDS, BENCH_CALLS).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpClient, probeConfinement } from '../dist/index.js';
import { fixtureServerConfig, referenceServerConfig } from '../dist/testing/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const now = () => performance.now();

const probe = probeConfinement(process.env.PATH);
if (!probe.available) {
  console.error(`bench/confine: confinement is unavailable here (${probe.reason}); ${probe.install}`);
  process.exit(1);
}

const root = mkdtempSync(join(tmpdir(), 'mcp-actors-bench-confine-'));
const servers = {
  fixture: (confine) => ({ ...fixtureServerConfig({ name: 'fixture' }), confine }),
  filesystem: (confine) => ({ ...referenceServerConfig('filesystem', { args: [root] }), confine }),
};
const setting = (confined) => (confined ? { root } : false);

async function coldStart(config) {
  const t0 = now();
  const client = new McpClient(config);
  await client.listTools();
  const elapsed = now() - t0;
  await client.dispose();
  return elapsed;
}

async function callRate(config, tool, args) {
  const client = new McpClient(config);
  await client.listTools();
  for (let i = 0; i < 100; i++) await client.callTool(tool, args);
  const t0 = now();
  for (let i = 0; i < CALLS; i++) await client.callTool(tool, args);
  const rate = CALLS / ((now() - t0) / 1000);
  await client.dispose();
  return rate;
}

const results = [];
try {
  for (const [name, make] of Object.entries(servers)) {
    const cold = { false: [], true: [] };
    const rate = { false: [], true: [] };
    const [tool, args] = name === 'fixture' ? ['echo', { message: 'hi' }] : ['list_allowed_directories', {}];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [false, true] : [true, false];
      for (const confined of order) {
        cold[confined].push(await coldStart(make(setting(confined))));
        rate[confined].push(await callRate(make(setting(confined)), tool, args));
      }
    }
    const row = {
      server: name,
      coldStartMs: { unconfined: median(cold.false), confined: median(cold.true) },
      callsPerSecond: { unconfined: median(rate.false), confined: median(rate.true) },
    };
    row.coldStartRatio = row.coldStartMs.confined / row.coldStartMs.unconfined;
    row.callRateRatio = row.callsPerSecond.confined / row.callsPerSecond.unconfined;
    results.push(row);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}

console.log(`confinement (bubblewrap at ${probe.bwrap}), median of ${ROUNDS} alternating rounds, ${CALLS} sequential calls each`);
for (const row of results) {
  console.log(
    `  ${row.server.padEnd(11)} cold start ${row.coldStartMs.unconfined.toFixed(1)} -> ${row.coldStartMs.confined.toFixed(1)} ms (${row.coldStartRatio.toFixed(2)}x, target <= 1.15x)` +
      `   calls ${row.callsPerSecond.unconfined.toFixed(0)} -> ${row.callsPerSecond.confined.toFixed(0)} /s (${row.callRateRatio.toFixed(2)}x, target >= 0.95x)`,
  );
}
if (process.env.BENCH_JSON) console.log(JSON.stringify(results));
