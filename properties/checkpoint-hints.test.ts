/**
 * A snapshot from hints is a snapshot: from a random tree and random changes, checkpoints and
 * `changesSince` given exactly the paths the changes touched agree with full walks of an identical
 * copy (same git tree, same manifest, same change list), and rolling back and forward again through
 * hinted checkpoints restores the identical tree.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CheckpointStore } from '../src/sandbox/checkpoint-store.js';
import { snapshotTree } from '../test/support/tree-snapshot.js';
import { applyTreeOp, tempDirs, treeOps, type TreeOp } from '../test/support/tree-ops.js';

const op = treeOps({
  maxBytes: 16,
  modes: [0o600, 0o644, 0o700, 0o755, 0o444, 0o750, 0o2755],
  targets: ['a', '../a', 'b/c', '/nonexistent/path', '.'],
  moveWeight: 2,
});
const tempDir = tempDirs();

/**
 * Applies `steps` to each root and returns every path they changed, as a watcher names them; an
 * operation that would reach its entry through a symlink is skipped.
 */
function applyAll(roots: readonly string[], steps: readonly TreeOp[]): string[] {
  const touched = new Set<string>();
  for (const root of roots) for (const step of steps) applyTreeOp(root, step, { dirBits: 0o700, skipThroughSymlink: true, touched });
  return [...touched];
}

function manifestOf(store: CheckpointStore, id: string): string | undefined {
  const file = JSON.parse(readFileSync(join(store.storeDir, 'checkpoints.json'), 'utf8')) as {
    checkpoints: { id: string; manifest: string }[];
  };
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
    // 30 runs of six snapshots each take ~35 s on 2 cores loaded by other work (~12 s idle).
  }, 180_000);
});
