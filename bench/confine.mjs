// What OS confinement (bubblewrap) costs: cold start (spawn to tools listed) and sequential call
// rate of the same server confined and unconfined, in alternating rounds so both see the same
// machine load; each round's confined figure is divided by the same round's unconfined one and the
// median of those ratios is reported. Targets (issue 15): cold start <= 1.15x, call rate >= 0.95x.
//
// There is no per-call hop to measure away: a confined server's stdin and stdout are the very
// sockets the host writes and reads (bwrap hands its fds down and relays nothing); the line
// "stdio path" below checks it on the running server. Only a network allowlist adds a process
// (the bridge), and it relays TCP, not stdio.
//
// Run after a build: `npm run build && node bench/confine.mjs`. BENCH_ROUNDS (default 7),
// BENCH_CALLS (default 2000), BENCH_BUDGET_S (default 50: no new round starts after that, at least
// 3 rounds run), BENCH_JSON=1 adds the raw figures.
import { readdirSync, readFileSync, readlinkSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpClient, probeConfinement } from '../dist/index.js';
import { fixtureServerConfig, referenceServerConfig } from '../dist/testing/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const BUDGET_MS = Number(process.env.BENCH_BUDGET_S ?? 50) * 1000;
const WARMUP = 100;
const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const now = () => performance.now();
const started = now();

const probe = probeConfinement(process.env.PATH);
if (!probe.available) {
  console.error(`bench/confine: confinement is unavailable here (${probe.reason}); ${probe.install}`);
  process.exit(1);
}

const root = mkdtempSync(join(tmpdir(), 'mcp-actors-bench-confine-'));
const servers = [
  { name: 'fixture', make: (confine) => ({ ...fixtureServerConfig({ name: 'fixture' }), confine }), tool: 'echo', args: { message: 'hi' } },
  {
    name: 'filesystem',
    make: (confine) => ({ ...referenceServerConfig('filesystem', { args: [root] }), confine }),
    tool: 'list_allowed_directories',
    args: {},
  },
];
const setting = (confined) => (confined ? { root } : false);

/** One spawn: its cold start, then the rate of CALLS sequential calls after a warm-up. */
async function sample(server, confined) {
  const t0 = now();
  const client = new McpClient(server.make(setting(confined)));
  await client.listTools();
  const coldMs = now() - t0;
  for (let i = 0; i < WARMUP; i++) await client.callTool(server.tool, server.args);
  const t1 = now();
  for (let i = 0; i < CALLS; i++) await client.callTool(server.tool, server.args);
  const rate = CALLS / ((now() - t1) / 1000);
  const stdio = confined ? stdioPath() : undefined;
  await client.dispose();
  return { coldMs, rate, stdio };
}

/** Whether the confined server (bwrap's grandchild) reads and writes the host's own stdio sockets. */
function stdioPath() {
  const children = (pid) =>
    readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((entry) => {
        try {
          return readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ')[1] === String(pid);
        } catch {
          return false;
        }
      });
  const fds = (pid) => {
    try {
      return [0, 1].map((fd) => readlinkSync(`/proc/${pid}/fd/${fd}`)).join(' ');
    } catch {
      return undefined;
    }
  };
  for (const bwrap of children(process.pid)) {
    if (!readFileSync(`/proc/${bwrap}/cmdline`, 'utf8').includes('bwrap')) continue;
    const outer = fds(bwrap);
    const leaves = [];
    const walk = (pid) => {
      const kids = children(pid);
      if (kids.length === 0) leaves.push(pid);
      kids.forEach(walk);
    };
    walk(bwrap);
    const same = leaves.every((leaf) => fds(leaf) === outer);
    return same
      ? `direct (the server's fds 0/1 are the host's ${outer})`
      : `RELAYED (bwrap ${outer}, server ${leaves.map(fds).join(', ')})`;
  }
  return 'unknown (no bwrap child found)';
}

const results = [];
let stdio = 'unknown';
try {
  for (const server of servers) {
    const rounds = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round >= 3 && now() - started > BUDGET_MS / (servers.length - servers.indexOf(server))) break;
      const order = round % 2 === 0 ? [false, true] : [true, false];
      const pair = {};
      for (const confined of order) pair[confined ? 'confined' : 'unconfined'] = await sample(server, confined);
      stdio = pair.confined.stdio ?? stdio;
      rounds.push(pair);
    }
    const pick = (mode, field) => rounds.map((pair) => pair[mode][field]);
    const ratios = (field) => rounds.map((pair) => pair.confined[field] / pair.unconfined[field]);
    results.push({
      server: server.name,
      rounds: rounds.length,
      coldStartMs: { unconfined: median(pick('unconfined', 'coldMs')), confined: median(pick('confined', 'coldMs')) },
      callsPerSecond: { unconfined: median(pick('unconfined', 'rate')), confined: median(pick('confined', 'rate')) },
      coldStartRatio: median(ratios('coldMs')),
      callRateRatio: median(ratios('rate')),
      coldStartRatioRange: [Math.min(...ratios('coldMs')), Math.max(...ratios('coldMs'))],
      callRateRatioRange: [Math.min(...ratios('rate')), Math.max(...ratios('rate'))],
    });
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}

const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const verdict = (ok) => (ok ? 'MEETS' : 'MISSES');
console.log(
  `confinement (bubblewrap at ${probe.bwrap}): ${CALLS} sequential calls per spawn, alternating rounds, median of per-round ratios`,
);
console.log(
  `  load average at the end: ${load} (on ${(await import('node:os')).availableParallelism()} cores); stdio path when confined: ${stdio}`,
);
for (const row of results) {
  const range = (r) => `${r[0].toFixed(2)}-${r[1].toFixed(2)}`;
  console.log(
    `  ${row.server.padEnd(11)} ${String(row.rounds).padStart(2)} rounds` +
      `  cold start ${row.coldStartMs.unconfined.toFixed(1)} -> ${row.coldStartMs.confined.toFixed(1)} ms: ratio ${row.coldStartRatio.toFixed(2)}x (rounds ${range(row.coldStartRatioRange)}), target <= 1.15x ${verdict(row.coldStartRatio <= 1.15)}` +
      `  |  calls ${row.callsPerSecond.unconfined.toFixed(0)} -> ${row.callsPerSecond.confined.toFixed(0)} /s: ratio ${row.callRateRatio.toFixed(2)}x (rounds ${range(row.callRateRatioRange)}), target >= 0.95x ${verdict(row.callRateRatio >= 0.95)}`,
  );
}
console.log(`  took ${((now() - started) / 1000).toFixed(1)} s`);
if (process.env.BENCH_JSON) console.log(JSON.stringify(results));
