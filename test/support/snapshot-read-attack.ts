/**
 * The attack of the snapshot read races: a process (python, `swap-and-write.py`) exchanges a
 * directory of a tree with a link to a folder it must not read, over and over, writing a new file
 * into the directory each time. Shared by the races (test/confine/snapshot-read-race.race.ts)
 * and their control in `npm run test:confine` (test/confine/snapshot-read-control.race.ts).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { isMcpActorsError } from '../../src/errors/mcp-actors-error.js';
import { Sandbox } from '../../src/sandbox/sandbox.js';
import { requireBwrap, requirePython } from './run-link-race.js';

const ATTACKER = fileURLToPath(new URL('./swap-and-write.py', import.meta.url));
export const SECRET = 'the private key the server must not see';
let attacks = 0;

/** Runs the attacker on `<root>/d` and `<root>/alt` while `work` runs; returns how many times it wrote the file. */
export async function underAttack(root: string, base: string, work: () => Promise<void>, file = 'f'): Promise<number> {
  const stop = join(base, `stop-${++attacks}`);
  const attacker = spawn('python3', [ATTACKER, join(root, 'd'), join(root, 'alt'), file, stop], { stdio: ['ignore', 'pipe', 'inherit'] });
  let written = '';
  const ended = new Promise<number | null>((resolve) => attacker.once('exit', resolve));
  // The work starts once the attacker is swapping, however long python takes to start on a busy machine.
  const ready = new Promise<void>((resolve, reject) => {
    attacker.stdout.on('data', (chunk: Buffer) => {
      written += chunk.toString('utf8');
      if (written.startsWith('ready\n')) resolve();
    });
    void ended.then((code) => reject(new Error(`the attacker (swap-and-write.py) exited ${String(code)} before it was ready`)));
  });
  try {
    await ready;
    await work();
  } finally {
    writeFileSync(stop, '');
    await ended;
  }
  return Number(written.slice('ready\n'.length).trim());
}

/**
 * Runs `work` with a sandbox of a project holding a directory `d` (with `f`), in a temp folder of
 * its own; needs python3 (the attacker) and bubblewrap (the box under test).
 */
export async function inSandbox(work: (at: { sandbox: Sandbox; base: string; project: string }) => Promise<void>): Promise<void> {
  requirePython();
  requireBwrap();
  const base = mkdtempSync(join(tmpdir(), 'snapshot-read-race-'));
  const project = join(base, 'project');
  mkdirSync(join(project, 'd'), { recursive: true });
  writeFileSync(join(project, 'd', 'f'), 'innocent 0\n');
  const sandbox = await Sandbox.create({ projectDir: project, tempDir: base });
  try {
    await work({ sandbox, base, project });
  } finally {
    await sandbox.dispose();
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * A folder holding the secret in `f`, made in the project after the sandbox was (so only a read
 * through the link brings it in). The box keeps the project readable; the host's temp dir, where
 * these tests run, it hides, so a folder elsewhere there would prove nothing.
 */
export function secretFolder(project: string, name: string): string {
  const folder = join(project, name);
  mkdirSync(folder);
  writeFileSync(join(folder, 'f'), `${SECRET}\n`);
  return folder;
}

/**
 * Runs `tries` diffs while the attacker exchanges the sandbox's `d` with a link to `target`
 * (writing `file` into `d` each time); counts the diffs that showed the secret.
 */
export async function diffsUnderAttack(
  sandbox: Sandbox,
  base: string,
  target: string,
  file: string,
  tries: number,
  { untilSecret = false } = {},
): Promise<{ secret: number; innocent: boolean }> {
  symlinkSync(target, join(sandbox.root, 'alt'));
  let [shown, secret, innocent] = [0, 0, false];
  const writes = await underAttack(
    sandbox.root,
    base,
    async () => {
      for (let i = 0; i < tries && !(untilSecret && secret > 0); i += 1) {
        try {
          const diff = await sandbox.diff();
          if (diff.includes(SECRET)) secret += 1;
          innocent ||= /innocent \d+/.test(diff);
          shown += 1;
        } catch (error) {
          // git met the folder gone from under it (the box hides it): the diff fails, it shows nothing.
          if (!(isMcpActorsError(error) && error.code === 'SANDBOX_FAILED')) throw error;
        }
      }
    },
    file,
  );
  expect(writes).toBeGreaterThan(0);
  expect(shown).toBeGreaterThan(0);
  return { secret, innocent };
}
