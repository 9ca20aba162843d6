/**
 * Why rollbacks run confined (`src/sandbox/confined-rollback.ts`), at full length (`npm run
 * test:confine`). While a store rolls back again and again to a checkpoint that holds `d` as a
 * link, an attacker swaps `d` atomically between an empty directory and a link to an outside folder
 * (`dir-exchanger.py`; renameat2, so python3 is needed). Unconfined, a rollback opens the link as
 * the directory it looked at and deletes the folder's file (the test can fail); confined, 1,000
 * rollbacks delete nothing, and each ends restored or CHECKPOINT_FAILED (the attack never stops).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { findBwrap } from '../../src/process/confinement/probe.js';
import { CheckpointStore } from '../../src/sandbox/checkpoint-store.js';
import { rollBackRepeatedly, unexpectedOutcomes, type RollbackOutcomes } from '../support/rollback-outcomes.js';
import { requireBwrap, requirePython } from '../support/run-link-race.js';

const EXCHANGER = fileURLToPath(new URL('../support/dir-exchanger.py', import.meta.url));
const LONG = 10 * 60_000;
const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Rolls back until the outside file is gone or `limit` rollbacks, with the attacker running. */
async function race(confined: boolean, limit: number): Promise<{ rollbacks: number; lost: boolean; outcomes: Record<string, number> }> {
  const work = mkdtempSync(join(tmpdir(), 'rollback-race-'));
  temps.push(work);
  const [root, outside, alt, stopFile] = [join(work, 'root'), join(work, 'outside'), join(work, 'alt'), join(work, 'stop')];
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, 'victim'), 'keep\n');
  symlinkSync('/nowhere', join(root, 'd'));
  const store = await CheckpointStore.open({ root, ...(confined ? { confineRollback: { bwrap: findBwrap(process.env.PATH)! } } : {}) });
  const target = await store.checkpoint('d is a link');
  rmSync(join(root, 'd'));
  mkdirSync(join(root, 'd'));
  symlinkSync(outside, alt);
  const attacker = spawn('python3', [EXCHANGER, join(root, 'd'), alt, outside, stopFile], { stdio: 'ignore' });
  let result: RollbackOutcomes;
  try {
    result = await rollBackRepeatedly(store, target.id, limit, () => existsSync(join(outside, 'victim')));
  } finally {
    writeFileSync(stopFile, '');
    if (attacker.exitCode === null) await new Promise((resolve) => attacker.on('exit', resolve));
    await store.dispose();
  }
  const lost = !existsSync(join(outside, 'victim'));
  if (!lost) expect(readdirSync(outside)).toEqual(['victim']);
  return { ...result, lost };
}

describe('rollback races: a directory swapped for a link to an outside folder', () => {
  it(
    'unconfined, a rollback deletes a file in that folder (the test can fail)',
    async () => {
      requirePython();
      const result = await race(false, 10_000);
      console.log(JSON.stringify({ confined: false, ...result }));
      expect(result.lost).toBe(true);
    },
    LONG,
  );

  it(
    'confined, 1,000 rollbacks delete nothing outside',
    async () => {
      requireBwrap();
      requirePython();
      const result = await race(true, 1_000);
      console.log(JSON.stringify({ confined: true, ...result }));
      expect(result.lost).toBe(false);
      expect(result.rollbacks).toBe(1_000);
      expect(unexpectedOutcomes(result.outcomes)).toEqual([]);
      expect(result.outcomes.restored ?? 0).toBeGreaterThan(0);
    },
    LONG,
  );
});
