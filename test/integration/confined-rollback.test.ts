/**
 * Rollbacks in bubblewrap (`confineRollback`): they restore exactly what an unconfined rollback
 * restores, one worker serves a store until it is disposed or idle, a worker that died is started again,
 * it gets none of the host's secrets,
 * and a directory flipped to a link to an outside folder while rollbacks run never costs that
 * folder a file. (That an unconfined checkout can lose one is shown in `npm run test:confine`.)
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { findBwrap } from '../../src/process/confinement/probe.js';
import { CheckpointStore } from '../../src/sandbox/checkpoint-store.js';
import { rollbackBoxArgs } from '../../src/sandbox/confined-rollback.js';
import { rollBackRepeatedly, unexpectedOutcomes } from '../support/rollback-outcomes.js';
import { requireBwrap } from '../support/run-link-race.js';
import { snapshotTree } from '../support/tree-snapshot.js';

const FLIPPER = fileURLToPath(new URL('../support/dir-flipper.mjs', import.meta.url));
const temps: string[] = [];
const stores: CheckpointStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.dispose();
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'confined-rollback-'));
  temps.push(dir);
  return dir;
}

async function confinedStore(root: string, idleMs?: number): Promise<CheckpointStore> {
  requireBwrap();
  const store = await CheckpointStore.open({
    root,
    confineRollback: { bwrap: findBwrap(process.env.PATH)!, ...(idleMs === undefined ? {} : { idleMs }) },
  });
  stores.push(store);
  return store;
}

/** Processes of this store's worker (bwrap, its init, node), found by the root in their command lines. */
function workerPids(root: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv.some((arg) => arg.endsWith('confined-rollback.mjs')) && argv.includes(root)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids.sort((a, b) => a - b);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
  if (!condition()) throw new Error(`timed out waiting until ${what}`);
}

function makeTree(root: string): void {
  writeFileSync(join(root, 'a.txt'), 'one\n');
  mkdirSync(join(root, 'empty'));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'run.sh'), '#!/bin/sh\n');
  chmodSync(join(root, 'src', 'run.sh'), 0o755);
  symlinkSync('a.txt', join(root, 'link'));
}

function mess(root: string): void {
  writeFileSync(join(root, 'a.txt'), 'two\n');
  writeFileSync(join(root, 'new.txt'), 'new\n');
  rmSync(join(root, 'empty'), { recursive: true });
  chmodSync(join(root, 'src', 'run.sh'), 0o600);
  rmSync(join(root, 'link'));
  mkdirSync(join(root, 'link'));
}

describe('rollbacks confined in bubblewrap', () => {
  it('the box leaves only the tree and the store writable', () => {
    const args = rollbackBoxArgs('/r', '/s');
    const writable = args.flatMap((arg, i) => (arg === '--bind' ? [args[i + 1]] : []));
    expect(writable).toEqual(['/r', '/s']);
    expect(args.join(' ')).toContain('--ro-bind / /');
    expect(args).toContain('--die-with-parent');
    expect(args).toContain('--unshare-net');
  });

  it('restores exactly what an unconfined rollback restores', async () => {
    const [plainRoot, confinedRoot] = [tempDir(), tempDir()];
    makeTree(plainRoot);
    makeTree(confinedRoot);
    const plain = await CheckpointStore.open({ root: plainRoot });
    stores.push(plain);
    const confined = await confinedStore(confinedRoot);
    const [p, c] = [await plain.checkpoint('before'), await confined.checkpoint('before')];
    const before = snapshotTree(confinedRoot);
    mess(plainRoot);
    mess(confinedRoot);
    await plain.rollback(p.id);
    await confined.rollback(c.id);
    expect(snapshotTree(confinedRoot)).toEqual(before);
    expect(snapshotTree(confinedRoot)).toEqual(snapshotTree(plainRoot));
    // The store goes on after a confined rollback: its next snapshot sees the tree as it is.
    writeFileSync(join(confinedRoot, 'later.txt'), 'x');
    expect((await confined.changesSince(c.id)).map((change) => `${change.kind} ${change.path}`)).toEqual(['added later.txt']);
  });

  it('one worker serves every rollback of a store, is started again when it died, and is gone after dispose', async () => {
    const root = tempDir();
    makeTree(root);
    const store = await confinedStore(root);
    const before = await store.checkpoint('before');
    expect(workerPids(root)).toEqual([]); // started at the first rollback, not before
    mess(root);
    process.env.MCP_ACTORS_TEST_SECRET = 'sk-live-do-not-pass';
    try {
      await store.rollback(before.id);
    } finally {
      delete process.env.MCP_ACTORS_TEST_SECRET;
    }
    const first = workerPids(root);
    expect(first.length).toBeGreaterThan(0);
    // The worker gets what git needs of the environment, not the host's secrets.
    for (const pid of first) expect(readFileSync(`/proc/${pid}/environ`, 'utf8')).not.toContain('sk-live-do-not-pass');
    mess(root);
    await store.rollback(before.id);
    expect(workerPids(root)).toEqual(first);
    process.kill(-first[0]!, 'SIGKILL');
    await until(() => workerPids(root).length === 0, 'the killed worker is gone');
    mess(root);
    await store.rollback(before.id);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\n');
    expect(workerPids(root).length).toBeGreaterThan(0);
    await store.dispose();
    await until(() => workerPids(root).length === 0, 'the worker is gone after dispose');
  });

  it('an idle worker ends, and the next rollback starts one again', async () => {
    const root = tempDir();
    makeTree(root);
    const store = await confinedStore(root, 300);
    const before = await store.checkpoint('before');
    mess(root);
    await store.rollback(before.id);
    expect(workerPids(root).length).toBeGreaterThan(0);
    await until(() => workerPids(root).length === 0, 'the idle worker has ended');
    mess(root);
    await store.rollback(before.id);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\n');
  });

  it('a directory flipping to a link to an outside folder while rollbacks run costs that folder nothing', async () => {
    const work = tempDir();
    const [root, outside, stop] = [join(work, 'root'), join(work, 'outside'), join(work, 'stop')];
    mkdirSync(root);
    mkdirSync(outside);
    writeFileSync(join(outside, 'victim'), 'keep\n');
    symlinkSync('/nowhere', join(root, 'd'));
    const store = await confinedStore(root);
    // The checkpoint holds d as a link: every rollback must replace whatever the flipper left.
    const target = await store.checkpoint('d is a link');
    rmSync(join(root, 'd'));
    const flipper = spawn(process.execPath, [FLIPPER, join(root, 'd'), outside, '5', '200', stop], { stdio: 'ignore' });
    let outcomes: Record<string, number>;
    try {
      ({ outcomes } = await rollBackRepeatedly(store, target.id, 100));
    } finally {
      writeFileSync(stop, '');
      await new Promise((resolve) => flipper.on('exit', resolve));
    }
    expect(readdirSync(outside)).toEqual(['victim']);
    expect(unexpectedOutcomes(outcomes)).toEqual([]);
    expect(outcomes.restored ?? 0).toBeGreaterThan(0);
    expect(existsSync(join(outside, 'victim'))).toBe(true);
  });
});
