// Lifecycle and call-path figures for McpClient, side by side with the raw MCP SDK in one run,
// alternating rounds so both see the same machine load. Run with `npm run bench` (builds first).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpClient } from '../dist/index.js';
import { fixtureServerConfig, referenceServerConfig } from '../dist/testing/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (x) => `${x.toFixed(1)} ms`;
const us = (x) => `${(x * 1000).toFixed(0)} us`;
const now = () => performance.now();

async function rawSdk(config) {
  const transport = new StdioClientTransport({ command: config.command, args: config.args, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  return client;
}

async function coldStartOurs(config) {
  const t0 = now();
  const client = new McpClient(config);
  await client.listTools();
  const elapsed = now() - t0;
  await client.dispose();
  return elapsed;
}

async function coldStartRaw(config) {
  const t0 = now();
  const client = await rawSdk(config);
  await client.listTools();
  const elapsed = now() - t0;
  await client.close();
  return elapsed;
}

async function crashToRunning(config) {
  const client = new McpClient(config);
  await client.start();
  const pid = client.status().pid;
  const running = new Promise((resolve) => {
    let sawStarting = false;
    const sub = client.state$.subscribe((state) => {
      if (state === 'STARTING') sawStarting = true;
      if (sawStarting && state === 'RUNNING') {
        queueMicrotask(() => sub.unsubscribe());
        resolve();
      }
    });
  });
  const t0 = now();
  process.kill(pid, 'SIGKILL');
  await running;
  const elapsed = now() - t0;
  await client.callTool('echo', { message: 'after crash' });
  await client.dispose();
  return elapsed;
}

async function stopTime(config) {
  const client = new McpClient(config);
  await client.start();
  const t0 = now();
  await client.stop();
  const elapsed = now() - t0;
  await client.dispose();
  return elapsed;
}

async function sequentialCalls(call) {
  const latencies = [];
  for (let i = 0; i < 100; i += 1) await call(); // warm up
  const t0 = now();
  for (let i = 0; i < CALLS; i += 1) {
    const s = now();
    await call();
    latencies.push(now() - s);
  }
  return { perSecond: CALLS / ((now() - t0) / 1000), p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

async function concurrentCalls(call, inFlight = 16) {
  const t0 = now();
  let issued = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (issued < CALLS) {
        issued += 1;
        await call();
      }
    }),
  );
  return CALLS / ((now() - t0) / 1000);
}

const fixture = fixtureServerConfig({ name: 'bench-fixture' });
const everything = referenceServerConfig('everything');
const rows = [];

for (const [label, config] of [
  ['fixture', fixture],
  ['server-everything', everything],
]) {
  const ours = [];
  const raw = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    raw.push(await coldStartRaw(config));
    ours.push(await coldStartOurs(config));
  }
  rows.push([`cold start, spawn to tools listed (${label})`, ms(median(ours)), ms(median(raw)), (median(ours) / median(raw)).toFixed(2)]);
}

const crashDefault = [];
const crashNoBackoff = [];
for (let round = 0; round < ROUNDS; round += 1) {
  crashDefault.push(await crashToRunning(fixture));
  crashNoBackoff.push(await crashToRunning({ ...fixture, backoff: { initialMs: 0, jitter: 0 } }));
}
rows.push(['crash (SIGKILL) to RUNNING, default backoff 200 ms (fixture)', ms(median(crashDefault)), 'never recovers', '-']);
rows.push(['crash (SIGKILL) to RUNNING, backoff 0 (fixture)', ms(median(crashNoBackoff)), 'never recovers', '-']);

const stops = [];
for (let round = 0; round < ROUNDS; round += 1) stops.push(await stopTime(fixture));
rows.push(['stop(), request to no process left (fixture)', ms(median(stops)), '-', '-']);

{
  const ours = new McpClient(fixture);
  await ours.start();
  const raw = await rawSdk(fixture);
  const oursCall = () => ours.callTool('echo', { message: 'x' });
  const rawCall = () => raw.callTool({ name: 'echo', arguments: { message: 'x' } });
  const seqOurs = [];
  const seqRaw = [];
  const parOurs = [];
  const parRaw = [];
  for (let round = 0; round < 3; round += 1) {
    seqRaw.push(await sequentialCalls(rawCall));
    seqOurs.push(await sequentialCalls(oursCall));
    parRaw.push(await concurrentCalls(rawCall));
    parOurs.push(await concurrentCalls(oursCall));
  }
  const mid = (xs, key) => median(xs.map((x) => x[key]));
  rows.push([
    'echo, sequential calls/s',
    mid(seqOurs, 'perSecond').toFixed(0),
    mid(seqRaw, 'perSecond').toFixed(0),
    (mid(seqOurs, 'perSecond') / mid(seqRaw, 'perSecond')).toFixed(2),
  ]);
  rows.push([
    'echo, sequential p50',
    us(mid(seqOurs, 'p50')),
    us(mid(seqRaw, 'p50')),
    (mid(seqOurs, 'p50') / mid(seqRaw, 'p50')).toFixed(2),
  ]);
  rows.push([
    'echo, sequential p99',
    us(mid(seqOurs, 'p99')),
    us(mid(seqRaw, 'p99')),
    (mid(seqOurs, 'p99') / mid(seqRaw, 'p99')).toFixed(2),
  ]);
  rows.push([
    'echo, 16 in flight, calls/s',
    median(parOurs).toFixed(0),
    median(parRaw).toFixed(0),
    (median(parOurs) / median(parRaw)).toFixed(2),
  ]);
  await ours.dispose();
  await raw.close();
}

console.log(`\nmcp-actors lifecycle benchmark — node ${process.version}, ${ROUNDS} rounds (medians), ${CALLS} calls a round\n`);
console.log('| measure | McpClient | raw SDK Client | ratio |');
console.log('| --- | --- | --- | --- |');
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
