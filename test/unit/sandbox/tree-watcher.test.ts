import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../../src/sandbox/checkpoint-store.js';
import { TreeWatcher } from '../../../src/sandbox/tree-watcher.js';

const run = promisify(execFile);
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
}

async function setup(): Promise<{ root: string; store: CheckpointStore; watcher: TreeWatcher; walks: string[] }> {
  const root = mkdtempSync(join(tmpdir(), 'tree-watcher-'));
  mkdirSync(join(root, 'd/e'), { recursive: true });
  writeFileSync(join(root, 'd/e/f.txt'), 'x');
  writeFileSync(join(root, 'top.txt'), 'x');
  symlinkSync('top.txt', join(root, 'link'));
  const walks: string[] = [];
  const store = await CheckpointStore.open({ root, onSnapshot: (info) => walks.push(info.walk) });
  const watcher = TreeWatcher.open(store.root);
  cleanups.push(
    () => rmSync(root, { recursive: true, force: true }),
    () => store.dispose(),
    () => watcher.close(),
  );
  await store.checkpoint('baseline', { changedPaths: watcher.take() });
  return { root, store, watcher, walks };
}

describe('TreeWatcher', () => {
  const changes: [name: string, script: string][] = [
    ['a modified file deep down', 'echo y > d/e/f.txt'],
    ['a chmod of a file', 'chmod 600 d/e/f.txt'],
    ['a chmod of a directory', 'chmod 700 d/e'],
    ['a chmod of the root', 'chmod 750 .'],
    ['a retargeted symlink', 'rm link && ln -s d link'],
    ['a removed symlink', 'rm link'],
    ['new nested directories with files', 'mkdir -p n/o/p && echo z > n/o/p/q.txt && echo w > n/o/r.txt'],
    ['a renamed directory, then a write in it', 'mv d moved && echo 1 > moved/e/new.txt'],
    ['a removed directory', 'rm -rf d'],
    ['a file replaced by a directory', 'rm top.txt && mkdir top.txt && echo a > top.txt/in'],
    ['an atomic rename over a file', 'echo q > d/e/tmp && mv d/e/tmp d/e/f.txt'],
  ];
  for (const [name, script] of changes) {
    it(`names every path a checkpoint must read again after ${name}`, async () => {
      const { root, store, watcher, walks } = await setup();
      await run('sh', ['-c', script], { cwd: root });
      await settle();
      const changed = watcher.take();
      expect(changed).not.toEqual([]);
      const after = await store.checkpoint('after', { changedPaths: changed });
      expect(walks).toEqual(['full', 'partial']);
      // A full walk finds nothing the hinted checkpoint missed.
      expect(await store.changesSince(after.id)).toEqual([]);
    });
  }

  it('keeps watching a renamed directory under its new name, across checkpoints', async () => {
    const { root, store, watcher } = await setup();
    await run('sh', ['-c', 'mv d moved'], { cwd: root });
    await settle();
    await store.checkpoint(undefined, { changedPaths: watcher.take() });
    await run('sh', ['-c', 'echo 2 > moved/e/f.txt && chmod 700 moved/e'], { cwd: root });
    await settle();
    const after = await store.checkpoint(undefined, { changedPaths: watcher.take() });
    expect(await store.changesSince(after.id)).toEqual([]);
  });

  it('answers undefined (walk everything) when more paths changed than it keeps', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tree-watcher-'));
    const watcher = TreeWatcher.open(root, { maxPaths: 3 });
    cleanups.push(
      () => rmSync(root, { recursive: true, force: true }),
      () => watcher.close(),
    );
    await run('sh', ['-c', 'touch a b c d e'], { cwd: root });
    await settle();
    expect(watcher.take()).toBeUndefined();
    await run('sh', ['-c', 'touch a'], { cwd: root });
    await settle();
    expect(watcher.take()).toEqual(['a']);
  });

  it('stops watching past its event limit until take(), which watches the tree afresh', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tree-watcher-'));
    mkdirSync(join(root, 'd'));
    const seen: (string | null)[] = [];
    const watcher = TreeWatcher.open(root, { maxEvents: 10, onEvent: (path) => seen.push(path) });
    cleanups.push(
      () => rmSync(root, { recursive: true, force: true }),
      () => watcher.close(),
    );
    expect(watcher.watchesAll).toBe(true);
    await run('sh', ['-c', 'for i in $(seq 1 40); do touch f$i; done'], { cwd: root });
    await settle();
    // Eleven events, then the null that says the rest are lost; nothing after.
    expect(seen.length).toBe(12);
    expect(seen.at(-1)).toBeNull();
    expect(watcher.watchesAll).toBe(false);
    await run('sh', ['-c', 'touch g && mkdir d/e && touch d/e/h'], { cwd: root });
    await settle();
    expect(seen.length).toBe(12);
    expect(watcher.take()).toBeUndefined();
    expect(watcher.watchesAll).toBe(true);
    // Watching again, the directory made while it paused included.
    await run('sh', ['-c', 'touch d/e/h'], { cwd: root });
    await settle();
    expect(watcher.take()).toEqual(['d/e/h']);
  });
});
