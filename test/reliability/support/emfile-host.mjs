#!/usr/bin/env node
/**
 * A host for test/reliability/spawn-emfile.test.ts, run under `prlimit --nofile=N`: it starts server
 * A, then opens /dev/null until the kernel says EMFILE, then asks for server B. B must fail with
 * SPAWN_FAILED (and be retried) while A keeps answering and this host lives; once the hoarded
 * descriptors are closed, B must start. Each step prints one JSON line on stdout.
 * Plain JavaScript on purpose: it is spawned with Node 20, which cannot run TypeScript.
 */
import { closeSync, openSync } from 'node:fs';
import { McpClient } from '../../../dist/index.js';
import { fixtureServerConfig } from '../../../dist/testing/index.js';

const say = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
const text = (result) => (result.content[0]?.type === 'text' ? result.content[0].text : JSON.stringify(result));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const a = new McpClient(fixtureServerConfig({ name: 'a' }));
const b = new McpClient(
  fixtureServerConfig({ name: 'b', extra: { maxRestarts: 1000, backoff: { initialMs: 50, maxMs: 200, factor: 2, jitter: 0 } } }),
);
say({ step: 'a-answered', text: text(await a.callTool('echo', { message: 'before' }, { timeoutMs: 15_000 })) });

const hoard = [];
for (;;) {
  try {
    hoard.push(openSync('/dev/null', 'r'));
  } catch (error) {
    say({ step: 'exhausted', code: error.code, hoarded: hoard.length });
    break;
  }
}

const started = b.start({ timeoutMs: 30_000 }).then(
  () => 'RUNNING',
  (error) => `rejected ${error.code}`,
);
// Wait for B's first failure to be recorded, and a few retries after it.
let seen;
for (let i = 0; i < 200 && !seen; i++) {
  await sleep(20);
  const status = b.status();
  if (status.lastError) seen = status;
}
await sleep(300);
const during = b.status();
// A call on A while the host still has no descriptor to spare.
const aDuring = await a.callTool('echo', { message: 'during' }, { timeoutMs: 10_000 }).then(text, (error) => `error ${error.code}`);
say({
  step: 'starved',
  bState: during.state,
  bError: seen?.lastError?.code,
  bErrno: seen?.lastError?.details?.errno,
  bTransient: seen?.lastError?.details?.transient,
  bRestarts: during.restarts,
  aAnswer: aDuring,
});

for (const fd of hoard) closeSync(fd);
say({ step: 'released', bStart: await started });
say({ step: 'b-answered', text: text(await b.callTool('echo', { message: 'after' }, { timeoutMs: 15_000 })) });
await Promise.all([a.stop(), b.stop()]);
say({ step: 'done' });
process.exit(0);
