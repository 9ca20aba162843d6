/**
 * Why rollbacks run confined (`src/sandbox/confined-rollback.ts`), at full length (`npm run
 * test:confine`): git's checkout, racing a directory that flips to a link to an outside folder,
 * deletes a file in that folder (through `remove_subtree`, which opens the path it looked at as a
 * directory); in the worker's box (`rollbackBoxArgs`: the host read-only, only the tree and the
 * store writable) the same checkouts never do. Then the store itself: 500 confined rollbacks
 * against the flipper cost the folder nothing.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { findBwrap } from '../../src/actors/confinement/probe.js';
import { isMcpActorsError } from '../../src/errors/index.js';
import { CheckpointStore } from '../../src/sandbox/checkpoint-store.js';
import { rollbackBoxArgs } from '../../src/sandbox/confined-rollback.js';
import { requireBwrap } from '../support/run-link-race.js';

const FLIPPER = fileURLToPath(new URL('../support/dir-flipper.mjs', import.meta.url));
const LONG = 10 * 60_000;
const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Race {
  readonly root: string;
  readonly outside: string;
  readonly git: string;
  readonly tree: string;
  readonly stop: () => Promise<void>;
}

/** A work tree whose git tree holds `d` as a link, an outside folder with a file, and the flipper on `d`. */
function startRace(): Race {
  const work = mkdtempSync(join(tmpdir(), 'rollback-race-'));
  temps.push(work);
  const [root, outside, git, stopFile] = [join(work, 'root'), join(work, 'outside'), join(work, 'git'), join(work, 'stop')];
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, 'victim'), 'keep\n');
  const env = { ...process.env, GIT_DIR: git, GIT_WORK_TREE: root };
  execFileSync('git', ['init', '-q'], { env });
  symlinkSync('/nowhere', join(root, 'd'));
  writeFileSync(join(root, 'a'), 'a\n');
  execFileSync('git', ['add', '-A'], { env });
  const tree = execFileSync('git', ['write-tree'], { env, encoding: 'utf8' }).trim();
  rmSync(join(root, 'd'));
  const flipper = spawn(process.execPath, [FLIPPER, join(root, 'd'), outside, '5', '200', stopFile], { stdio: 'ignore' });
  const stop = async (): Promise<void> => {
    writeFileSync(stopFile, '');
    if (flipper.exitCode === null) await new Promise((resolve) => flipper.on('exit', resolve));
  };
  return { root, outside, git, tree, stop };
}

/** Checks `tree` out again and again (each run in `box`, if given) until the victim is gone or `limit` runs. */
function checkoutUntilLost(race: Race, limit: number, box?: readonly string[]): { runs: number; lost: boolean } {
  const env = { ...process.env, GIT_DIR: race.git, GIT_WORK_TREE: race.root };
  const [command, args] = box
    ? [findBwrap(process.env.PATH)!, [...box, '--', 'git', 'read-tree', '--reset', '-u', race.tree]]
    : ['git', ['read-tree', '--reset', '-u', race.tree]];
  for (let runs = 1; runs <= limit; runs += 1) {
    spawnSync(command, args, { env, stdio: 'ignore' });
    if (!existsSync(join(race.outside, 'victim'))) return { runs, lost: true };
  }
  return { runs: limit, lost: false };
}

describe('rollback races: a directory flipping to a link to an outside folder', () => {
  it('unconfined, git checking out over it deletes a file in that folder (the test can fail)', async () => {
    const race = startRace();
    try {
      const result = checkoutUntilLost(race, 60_000);
      console.log(JSON.stringify({ unconfined: true, ...result }));
      expect(result.lost).toBe(true);
    } finally {
      await race.stop();
    }
  }, LONG);

  it("in the rollback worker's box, 3,000 of the same checkouts delete nothing outside", async () => {
    requireBwrap();
    const race = startRace();
    try {
      const result = checkoutUntilLost(race, 3_000, rollbackBoxArgs(race.root, race.git));
      console.log(JSON.stringify({ confined: true, ...result }));
      expect(result.lost).toBe(false);
      expect(readdirSync(race.outside)).toEqual(['victim']);
    } finally {
      await race.stop();
    }
  }, LONG);

  it('500 confined rollbacks of the store, against the flipper, delete nothing outside', async () => {
    requireBwrap();
    const race = startRace();
    await race.stop(); // the store takes its checkpoint of d as a link first
    const work = join(race.root, '..');
    const root = join(work, 'tree');
    mkdirSync(root);
    symlinkSync('/nowhere', join(root, 'd'));
    const store = await CheckpointStore.open({ root, confineRollback: { bwrap: findBwrap(process.env.PATH)! } });
    const target = await store.checkpoint('d is a link');
    rmSync(join(root, 'd'));
    const stopFile = join(work, 'stop-store');
    const flipper = spawn(process.execPath, [FLIPPER, join(root, 'd'), race.outside, '5', '200', stopFile], { stdio: 'ignore' });
    const outcomes: Record<string, number> = {};
    try {
      for (let i = 0; i < 500; i += 1) {
        const outcome = await store.rollback(target.id).then(
          () => 'restored',
          (error: unknown) => (isMcpActorsError(error) ? error.code : `threw ${String(error)}`),
        );
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
    } finally {
      writeFileSync(stopFile, '');
      await new Promise((resolve) => (flipper.exitCode === null ? flipper.on('exit', resolve) : resolve(undefined)));
      await store.dispose();
    }
    console.log(JSON.stringify({ store: true, outcomes }));
    expect(readdirSync(race.outside)).toEqual(['victim']);
    expect(Object.keys(outcomes).filter((kind) => kind !== 'restored' && kind !== 'CHECKPOINT_FAILED')).toEqual([]);
  }, LONG);
});
