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
 *   folder (`~/.ssh`), so it never shows one of its files.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../src/sandbox/checkpoint-store.js';
import { walkTree } from '../../src/sandbox/tree-manifest.js';
import { Sandbox } from '../../src/sandbox/sandbox.js';
import { isMcpActorsError } from '../../src/errors/mcp-actors-error.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { fixtureServerPath } from '../../src/testing/fixture.js';
import { requireBwrap, requirePython } from '../support/run-link-race.js';

const ATTACKER = fileURLToPath(new URL('../support/swap-and-write.py', import.meta.url));
const SECRET = 'the private key the server must not see';
const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

let attacks = 0;

/** Every object of the store's repository, with its content. */
function storedObjects(storeDir: string): string {
  return execFileSync('git', ['--git-dir', join(storeDir, 'git'), 'cat-file', '--batch-all-objects', '--batch'], { maxBuffer: 256 * 1024 * 1024 }).toString('utf8');
}


/** Runs the attacker on `<root>/d` and `<root>/alt` while `work` runs; returns how many times it wrote the file. */
async function underAttack(root: string, base: string, work: () => Promise<void>, file = 'f'): Promise<number> {
  const stop = join(base, `stop-${++attacks}`);
  const attacker = spawn('python3', [ATTACKER, join(root, 'd'), join(root, 'alt'), file, stop], { stdio: ['ignore', 'pipe', 'inherit'] });
  let written = '';
  attacker.stdout.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
  const ended = new Promise((resolve) => attacker.once('exit', resolve));
  try {
    await work();
  } finally {
    writeFileSync(stop, '');
    await ended;
  }
  return Number(written.trim());
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
    expect(writes).toBeGreaterThan(150);
    expect(taken + failed).toBe(150);
    expect(taken).toBeGreaterThan(0);
    // The directory's own file was read, over and over: the race ran.
    expect(objects).toMatch(/innocent \d+/);
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
      await new Promise((resolve) => setTimeout(resolve, 300)); // python is up and swapping
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

  it('the control: a folder nobody denies is read through the link, so the box is what keeps the denied ones out', { timeout: 120_000 }, async () => {
    await inSandbox(async ({ sandbox, base, project }) => {
      const seen = await diffsUnderAttack(sandbox, base, secretFolder(project, 'not-denied'), 'f', 300, { untilSecret: true });
      expect(seen.secret).toBeGreaterThan(0);
    });
  });

  it("a diff never shows a file of a confined server's extra deny path, which the runtime tells the sandbox", { timeout: 120_000 }, async () => {
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
  });

  it("a diff never shows the project's .env, which confined servers cannot read either", { timeout: 120_000 }, async () => {
    await inSandbox(async ({ sandbox, base, project }) => {
      // Written after the sandbox was made, so only a read through the link could bring it in.
      writeFileSync(join(project, '.env'), `TOKEN=${SECRET}\n`);
      expect(await diffsUnderAttack(sandbox, base, project, '.env', 60)).toEqual({ secret: 0, innocent: true });
    });
  });
});

/**
 * Runs `work` with a sandbox of a project holding a directory `d` (with `f`), in a temp folder of
 * its own; needs python3 (the attacker) and bubblewrap (the box under test).
 */
async function inSandbox(work: (at: { sandbox: Sandbox; base: string; project: string }) => Promise<void>): Promise<void> {
  requirePython();
  requireBwrap();
  const base = mkdtempSync(join(tmpdir(), 'snapshot-read-race-'));
  temps.push(base);
  const project = join(base, 'project');
  mkdirSync(join(project, 'd'), { recursive: true });
  writeFileSync(join(project, 'd', 'f'), 'innocent 0\n');
  const sandbox = await Sandbox.create({ projectDir: project, tempDir: base });
  try {
    await work({ sandbox, base, project });
  } finally {
    await sandbox.dispose();
  }
}

/**
 * A folder holding the secret in `f`, made in the project after the sandbox was (so only a read
 * through the link brings it in). The box keeps the project readable; the host's temp dir, where
 * these tests run, it hides, so a folder elsewhere there would prove nothing.
 */
function secretFolder(project: string, name: string): string {
  const folder = join(project, name);
  mkdirSync(folder);
  writeFileSync(join(folder, 'f'), `${SECRET}\n`);
  return folder;
}

/**
 * Runs `tries` diffs while the attacker exchanges the sandbox's `d` with a link to `target`
 * (writing `file` into `d` each time); counts the diffs that showed the secret.
 */
async function diffsUnderAttack(
  sandbox: Sandbox,
  base: string,
  target: string,
  file: string,
  tries: number,
  { untilSecret = false } = {},
): Promise<{ secret: number; innocent: boolean }> {
  symlinkSync(target, join(sandbox.root, 'alt'));
  let [shown, failed, secret, innocent] = [0, 0, 0, false];
  const writes = await underAttack(sandbox.root, base, async () => {
    for (let i = 0; i < tries && !(untilSecret && secret > 0); i += 1) {
      try {
        const diff = await sandbox.diff();
        if (diff.includes(SECRET)) secret += 1;
        innocent ||= /innocent \d+/.test(diff);
        shown += 1;
      } catch (error) {
        // git met the folder gone from under it (the box hides it): the diff fails, it shows nothing.
        if (!(isMcpActorsError(error) && error.code === 'SANDBOX_FAILED')) throw error;
        failed += 1;
      }
    }
  }, file);
  expect(writes).toBeGreaterThan(0);
  expect(shown).toBeGreaterThan(0);
  return { secret, innocent };
}
