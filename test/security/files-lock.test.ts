/**
 * The inter-process file lock with real processes: a live holder keeps others out (they fail with
 * FILE_BUSY naming it), and the lock of a holder that was killed is taken over at once (by pid,
 * without waiting for it to go stale by age).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireFileLock, lockPathFor } from '../../src/files/file-lock.js';
import { repoRoot } from '../support/agents-cli.js';

const base = mkdtempSync(join(tmpdir(), 'mcp-actors-files-lock-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const lockModule = pathToFileURL(join(repoRoot, 'dist/files/file-lock.js')).href;

describe('the file lock between processes', () => {
  it('keeps a second process out while the holder lives, and is taken over as soon as the holder is killed', async () => {
    const lock = lockPathFor(join(base, 'agents.yaml'));
    const script = `
      import { acquireFileLock } from ${JSON.stringify(lockModule)};
      await acquireFileLock(${JSON.stringify(lock)});
      process.stdout.write('held\\n');
      setInterval(() => undefined, 1000);`;
    const holder = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => holder.on('exit', resolve));
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));

    const busy = await acquireFileLock(lock, { timeoutMs: 300, staleMs: 60_000, what: 'agents.yaml' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(busy).toMatchObject({ code: 'FILE_BUSY', details: { pid: holder.pid } });
    expect((busy as Error).message).toMatch(/^agents\.yaml is being written by another process \(pid \d+\)/);

    holder.kill('SIGKILL');
    await exited;
    // Its lock file is still there; a stale age of a minute and a wait of 5 s: only the dead pid lets this through in time.
    expect(existsSync(lock)).toBe(true);
    const taken = await acquireFileLock(lock, { timeoutMs: 5_000, staleMs: 60_000 });
    await taken.release();
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(`${lock}.break`)).toBe(false);
  }, 30_000);
});
