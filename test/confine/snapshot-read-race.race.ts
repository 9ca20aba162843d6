/**
 * A snapshot never reads what a confined server may not. A process that goes on running in the
 * tree (a confined server, after its call) exchanges a directory with a link to a folder it must not read, over and
 * over, and writes a new file into the directory each time, so every snapshot reads that file
 * again.
 * - The walk (names, modes): listed by path, it listed the linked folder; listed through
 *   descriptors beneath the root, never.
 * - Checkpoints: read by path (git's `update-index --add`), the snapshot stored the outside folder's file
 *   in about half of the tries; read through descriptors (`tree-blobs.ts`), never.
 * - A sandbox's diff (`git add`, for the project's filters): in bubblewrap's box it cannot see a denied
 *   folder (`~/.ssh`), so it never shows one of its files. The control (a folder nobody denies is
 *   read through the link) is test/confine/snapshot-read-control.race.ts, which retries until the
 *   attack wins.
 * Races with a process, so they run in `npm run test:confine`, not in npm test.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../src/sandbox/checkpoint-store.js';
import { walkTree } from '../../src/sandbox/tree-manifest.js';
import { isMcpActorsError } from '../../src/errors/mcp-actors-error.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { fixtureServerPath } from '../../src/testing/fixture.js';
import { requirePython } from '../support/run-link-race.js';
import { SECRET, diffsUnderAttack, inSandbox, secretFolder, underAttack } from '../support/snapshot-read-attack.js';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Every object of the store's repository, with its content. */
function storedObjects(storeDir: string): string {
  return execFileSync('git', ['--git-dir', join(storeDir, 'git'), 'cat-file', '--batch-all-objects', '--batch'], {
    maxBuffer: 256 * 1024 * 1024,
  }).toString('utf8');
}

describe('snapshots against a directory exchanged with a link to an outside folder', () => {
  it('checkpoints never store a file of the outside folder', { timeout: 120_000 }, async () => {
    requirePython();
    const base = mkdtempSync(join(tmpdir(), 'snapshot-read-race-'));
    temps.push(base);
    const [root, outside] = [join(base, 'tree'), join(base, 'outside')];
    mkdirSync(join(root, 'd'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(outside, 'f'), `${SECRET}\n`);
    writeFileSync(join(root, 'd', 'f'), 'innocent 0\n');
    symlinkSync(outside, join(root, 'alt'));
    const store = await CheckpointStore.open({ root });
    let [taken, failed] = [0, 0];
    const writes = await underAttack(root, base, async () => {
      for (let i = 0; i < 150; i += 1) {
        try {
          await store.checkpoint(`try ${i}`);
          taken += 1;
        } catch (error) {
          // Every try met a concurrent change: refused, never read outside.
          if (!(isMcpActorsError(error) && error.code === 'CHECKPOINT_FAILED')) throw error;
          failed += 1;
        }
      }
    });
    const objects = storedObjects(store.storeDir);
    await store.dispose();
    expect(writes).toBeGreaterThan(0);
    expect(taken + failed).toBe(150);
    expect(taken).toBeGreaterThan(0);
    // A file the attacker wrote was read (the tree began with "innocent 0"): the race ran.
    expect(objects).toMatch(/innocent [1-9]/);
    expect(objects).not.toContain(SECRET);
  });

  it('the walk never lists a folder behind the link, not even its names', { timeout: 120_000 }, async () => {
    requirePython();
    const base = mkdtempSync(join(tmpdir(), 'snapshot-read-race-'));
    temps.push(base);
    const [root, outside] = [join(base, 'tree'), join(base, 'outside')];
    mkdirSync(join(root, 'd'), { recursive: true });
    mkdirSync(join(outside, 'secret-folder'), { recursive: true });
    writeFileSync(join(outside, 'secret-name.pem'), `${SECRET}\n`);
    writeFileSync(join(root, 'd', 'f'), 'innocent 0\n');
    symlinkSync(outside, join(root, 'alt'));
    let [walks, sawD] = [0, 0];
    const leaked = new Set<string>();
    const writes = await underAttack(root, base, async () => {
      for (; walks < 3_000; walks += 1) {
        const walk = await walkTree(root);
        if (walk.get('d')?.type === 'dir') sawD += 1;
        for (const path of walk.keys()) if (path.includes('secret')) leaked.add(path);
      }
    });
    expect(writes).toBeGreaterThan(0);
    expect(sawD).toBeGreaterThan(0); // the race ran: the walk met d as a directory
    expect([...leaked]).toEqual([]);
  });

  it("a sandbox's diff never shows a file of a denied folder (bubblewrap's box)", { timeout: 120_000 }, async () => {
    await inSandbox(async ({ sandbox, base }) => {
      const home = join(base, 'home');
      mkdirSync(join(home, '.ssh'), { recursive: true });
      writeFileSync(join(home, '.ssh', 'f'), `${SECRET}\n`);
      const savedHome = process.env.HOME;
      process.env.HOME = home; // the denied paths are read from HOME, as for a server
      try {
        expect(await diffsUnderAttack(sandbox, base, join(home, '.ssh'), 'f', 60)).toEqual({ secret: 0, innocent: true });
      } finally {
        process.env.HOME = savedHome;
      }
    });
  });

  it(
    "a diff never shows a file of a confined server's extra deny path, which the runtime tells the sandbox",
    { timeout: 120_000 },
    async () => {
      await inSandbox(async ({ sandbox, base, project }) => {
        const outside = secretFolder(project, 'denied');
        const runtime = await createRuntime({
          config: {
            servers: { fx: { command: process.execPath, args: [fixtureServerPath()], confine: { deny: [outside] } } },
            skills: { s: { mcp_servers: ['fx'] } },
            actors: { a: { skills: ['s'] } },
          },
        });
        try {
          const actor = await runtime.activate('a', { tenant: 't', sandbox });
          expect(actor.activation?.unavailable).toEqual([]);
          expect(await diffsUnderAttack(sandbox, base, outside, 'f', 60)).toEqual({ secret: 0, innocent: true });
        } finally {
          await runtime.shutdown();
        }
      });
    },
  );

  it("a diff never shows the project's .env, which confined servers cannot read either", { timeout: 120_000 }, async () => {
    await inSandbox(async ({ sandbox, base, project }) => {
      // Written after the sandbox was made, so only a read through the link could bring it in.
      writeFileSync(join(project, '.env'), `TOKEN=${SECRET}\n`);
      expect(await diffsUnderAttack(sandbox, base, project, '.env', 60)).toEqual({ secret: 0, innocent: true });
    });
  });
});
