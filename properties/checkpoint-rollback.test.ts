/**
 * Rollback is exact: from a random small tree (files with random bytes and modes, directories with
 * modes, empty directories, symlinks, dangling ones, entries under a nested `.git`), a checkpoint,
 * then a random sequence of writes, deletes, chmods, mkdirs, symlinks and moves, a rollback gives
 * back the identical tree — every path, type, byte, mode and symlink target.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CheckpointStore, RollbackStep } from '../src/sandbox/checkpoint-store.js';
import { snapshotTree, type TreeEntry } from '../test/support/tree-snapshot.js';
import { applyTreeOp, tempDirs, treeOps, type TreeOp } from '../test/support/tree-ops.js';

const op = treeOps({
  maxBytes: 48,
  modes: [0o600, 0o640, 0o644, 0o700, 0o755, 0o444, 0o711, 0o750, 0o555, 0o2755],
  targets: ['a', '../a', 'b/c', '/nonexistent/path', '.', 'c d', '..'],
  moveWeight: 1,
});
const tempDir = tempDirs();

/** Applies `step` to the tree at `root`; a chmod of a directory keeps it enterable. */
const apply = (root: string, step: TreeOp): void => applyTreeOp(root, step, { dirBits: 0o100 });

function withoutSpecials(tree: Record<string, TreeEntry>): Record<string, TreeEntry> {
  return Object.fromEntries(Object.entries(tree).filter(([, entry]) => entry.type !== 'other'));
}

describe('checkpoint rollback', () => {
  it('restores the identical tree after any sequence of changes, and reports changes exactly when there are some', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 14 }),
        fc.array(op, { minLength: 0, maxLength: 10 }),
        fc.array(op, { minLength: 0, maxLength: 6 }),
        async (setup, changes, more) => {
          const root = tempDir('ckpt-prop-');
          const store = await CheckpointStore.open({ root, storeDir: join(tempDir('ckpt-prop-store-'), 'store') });
          try {
            for (const step of setup) apply(root, step);
            const original = snapshotTree(root);
            const first = await store.checkpoint();

            for (const step of changes) apply(root, step);
            const changed = snapshotTree(root);
            const reported = await store.changesSince(first.id);
            expect(reported.length === 0).toBe(JSON.stringify(changed) === JSON.stringify(original));
            const second = await store.checkpoint();
            for (const step of more) apply(root, step);

            await store.rollback(first.id);
            expect(snapshotTree(root)).toEqual(original);
            await store.rollback(second.id);
            expect(snapshotTree(root)).toEqual(withoutSpecials(changed));
            expect(await store.changesSince(second.id)).toEqual([]);
          } finally {
            await store.dispose();
            rmSync(root, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: Number(process.env.CKPT_RUNS ?? 35) },
    );
  }, 180_000);

  it('finishes a rollback interrupted at any step, from whatever half-done state, on the next open()', async () => {
    const steps = Object.values(RollbackStep);
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 12 }),
        fc.array(op, { minLength: 1, maxLength: 8 }),
        fc.constantFrom(...steps),
        fc.array(op, { maxLength: 4 }),
        async (setup, changes, crashAfter, scribbles) => {
          const root = tempDir('ckpt-prop-');
          const storeDir = join(tempDir('ckpt-prop-store-'), 'store');
          const crash = new Error('simulated crash');
          const store = await CheckpointStore.open({
            root,
            storeDir,
            onRollbackStep: (step) => {
              if (step !== crashAfter) return;
              for (const scribble of scribbles) apply(root, scribble);
              throw crash;
            },
          });
          let reopened: CheckpointStore | undefined;
          try {
            for (const step of setup) apply(root, step);
            const original = snapshotTree(root);
            const first = await store.checkpoint();
            for (const step of changes) apply(root, step);
            await expect(store.rollback(first.id)).rejects.toMatchObject({ code: 'CHECKPOINT_FAILED', cause: crash });
            reopened = await CheckpointStore.open({ root, storeDir });
            expect(snapshotTree(root)).toEqual(original);
          } finally {
            await (reopened ?? store).dispose();
            rmSync(root, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: Math.ceil(Number(process.env.CKPT_RUNS ?? 35) / 2) },
    );
  }, 180_000);
});
