/**
 * A snapshot from hints is a snapshot: from a random tree and random changes, checkpoints and
 * `changesSince` given exactly the paths the changes touched agree with full walks of an identical
 * copy (same git tree, same manifest, same change list), and rolling back and forward again through
 * hinted checkpoints restores the identical tree.
 */
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CheckpointStore } from '../src/sandbox/checkpoint-store.js';
import { snapshotTree } from '../test/support/tree-snapshot.js';

type Op =
  | { readonly op: 'write'; readonly path: string; readonly bytes: Uint8Array }
  | { readonly op: 'chmod'; readonly path: string; readonly mode: number }
  | { readonly op: 'mkdir'; readonly path: string }
  | { readonly op: 'symlink'; readonly path: string; readonly target: string }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'move'; readonly path: string; readonly to: string };

const TOP = ['a', 'b', 'c d', 'é'];
const BELOW = ['a', 'b', 'x\ny', '.git', 'f'];
const path = fc
  .tuple(fc.constantFrom(...TOP), fc.array(fc.constantFrom(...BELOW), { maxLength: 2 }))
  .map(([top, rest]) => [top, ...rest].join('/'));
const mode = fc.constantFrom(0o600, 0o644, 0o700, 0o755, 0o444, 0o750, 0o2755);
const target = fc.constantFrom('a', '../a', 'b/c', '/nonexistent/path', '.');

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('write' as const), path, bytes: fc.uint8Array({ maxLength: 16 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('chmod' as const), path: fc.oneof(path, fc.constant('')), mode }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('mkdir' as const), path }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('symlink' as const), path, target }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('remove' as const), path }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('move' as const), path, to: path }) },
);

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

function tryLstat(absolute: string): Stats | undefined {
  try {
    return lstatSync(absolute);
  } catch {
    return undefined;
  }
}

/** True when some parent of `path` is not a real directory (so `path` may name another entry through a symlink). */
function throughSymlink(root: string, path: string): boolean {
  const parts = path.split('/');
  return parts.slice(1).some((_, i) => !tryLstat(join(root, ...parts.slice(0, i + 1)))?.isDirectory());
}

/**
 * Applies `step` to `root` and adds every path it changed (not their parents) to `touched`, as a
 * watcher names them: an operation that would reach its entry through a symlink is skipped.
 */
function apply(root: string, step: Op, touched: Set<string>): void {
  const absolute = join(root, step.path);
  if ((step.op === 'chmod' || step.op === 'remove' || step.op === 'move') && throughSymlink(root, step.path)) return;
  const ensureParents = (to: string): void => {
    const parts = to.split('/');
    for (let i = 1; i < parts.length; i += 1) {
      const parent = parts.slice(0, i).join('/');
      const stat = tryLstat(join(root, parent));
      if (stat?.isDirectory()) continue;
      if (stat) unlinkSync(join(root, parent));
      mkdirSync(join(root, parent));
      touched.add(parent);
    }
  };
  const clear = (at: string): void => {
    if (!tryLstat(join(root, at))) return;
    rmSync(join(root, at), { recursive: true, force: true });
    touched.add(at);
  };
  switch (step.op) {
    case 'write':
      ensureParents(step.path);
      if (!tryLstat(absolute)?.isFile()) clear(step.path);
      writeFileSync(absolute, step.bytes);
      touched.add(step.path);
      return;
    case 'chmod': {
      const stat = tryLstat(absolute);
      if (!stat || stat.isSymbolicLink()) return;
      chmodSync(absolute, stat.isDirectory() ? step.mode | 0o700 : step.mode);
      touched.add(step.path);
      return;
    }
    case 'mkdir':
      ensureParents(step.path);
      if (tryLstat(absolute)?.isDirectory()) return;
      clear(step.path);
      mkdirSync(absolute);
      touched.add(step.path);
      return;
    case 'symlink':
      ensureParents(step.path);
      clear(step.path);
      symlinkSync(step.target, absolute);
      touched.add(step.path);
      return;
    case 'remove':
      clear(step.path);
      return;
    case 'move': {
      if (!tryLstat(absolute) || step.to === step.path || step.to.startsWith(`${step.path}/`) || step.path.startsWith(`${step.to}/`)) return;
      ensureParents(step.to);
      if (!tryLstat(absolute)) return;
      clear(step.to);
      if (!tryLstat(absolute)) return;
      renameSync(absolute, join(root, step.to));
      touched.add(step.path).add(step.to);
    }
  }
}

function applyAll(roots: readonly string[], steps: readonly Op[]): string[] {
  const touched = new Set<string>();
  for (const root of roots) for (const step of steps) apply(root, step, touched);
  return [...touched];
}

function manifestOf(store: CheckpointStore, id: string): string | undefined {
  const file = JSON.parse(readFileSync(join(store.storeDir, 'checkpoints.json'), 'utf8')) as { checkpoints: { id: string; manifest: string }[] };
  return file.checkpoints.find((c) => c.id === id)?.manifest;
}

describe('checkpoints from changed paths', () => {
  it('agree with full walks, and roll back and forward exactly', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 12 }),
        fc.array(op, { maxLength: 8 }),
        fc.array(op, { maxLength: 8 }),
        fc.array(op, { maxLength: 6 }),
        async (setup, first, second, third) => {
          const roots = [tempDir('ckpt-hint-'), tempDir('ckpt-hint-')] as const;
          const walks: string[] = [];
          const hinted = await CheckpointStore.open({ root: roots[0], onSnapshot: (info) => walks.push(info.walk) });
          const full = await CheckpointStore.open({ root: roots[1] });
          try {
            applyAll(roots, setup);
            const base = [await hinted.checkpoint(), await full.checkpoint()] as const;

            let touched = applyAll(roots, first);
            expect(await hinted.changesSince(base[0].id, { changedPaths: touched })).toEqual(await full.changesSince(base[1].id));

            touched = applyAll(roots, second);
            const middle = [await hinted.checkpoint('middle', { changedPaths: touched }), await full.checkpoint('middle')] as const;
            expect(middle[0].tree).toBe(middle[1].tree);
            expect(manifestOf(hinted, middle[0].id)).toBe(manifestOf(full, middle[1].id));
            const middleTree = snapshotTree(roots[0]);

            touched = applyAll(roots, third);
            expect(await hinted.changesSince(middle[0].id, { changedPaths: touched })).toEqual(await full.changesSince(middle[1].id));
            const last = [await hinted.checkpoint('last', { changedPaths: [] }), await full.checkpoint('last')] as const;
            expect(last[0].tree).toBe(last[1].tree);
            expect(manifestOf(hinted, last[0].id)).toBe(manifestOf(full, last[1].id));
            expect(walks).toEqual(['full', 'partial', 'partial', 'partial', 'partial']);

            await hinted.rollback(base[0].id);
            await hinted.rollback(middle[0].id);
            expect(snapshotTree(roots[0])).toEqual(middleTree);
            expect(await hinted.changesSince(middle[0].id)).toEqual([]);
          } finally {
            await hinted.dispose();
            await full.dispose();
            for (const root of roots) rmSync(root, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: Number(process.env.CKPT_RUNS ?? 30) },
    );
  });
});
