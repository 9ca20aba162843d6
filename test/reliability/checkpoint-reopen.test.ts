/**
 * Reopening a checkpoint store a dead host left: its git may still be running and holding
 * `index.lock` (before the fix a reopen failed CHECKPOINT_FAILED in 1-4 of 12 tries). The reopen
 * waits for such a git, kills it if it lingers, clears the lock, and works at once.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/process/process-table.js';
import { CheckpointStore } from '../../src/sandbox/checkpoint-store.js';
import { leftoverGitProcesses } from '../../src/sandbox/git-leftovers.js';
import { runGitProcess } from '../../src/sandbox/git-process.js';
import { liveGroups } from '../../src/process/process-groups.js';
import { waitUntil } from '../support/wait.js';

const dirs: string[] = [];
const strays: number[] = [];
afterEach(() => {
  for (const pid of strays.splice(0)) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/**
 * A stand-in for a git whose host died: an orphan (double fork, so not our child) with the store's
 * git environment that keeps re-taking `index.lock`. Resolves with its pid.
 */
async function orphanGit(storeDir: string): Promise<number> {
  const pidFile = join(storeDir, '..', `orphan-${Date.now()}.pid`);
  const script = `(while true; do : > "$GIT_INDEX_FILE.lock"; sleep 0.02; done) & echo $! > "${pidFile}"`;
  await new Promise<void>((resolve, reject) => {
    const shell = spawn('/bin/sh', ['-c', script], {
      env: { PATH: process.env.PATH, GIT_INDEX_FILE: join(storeDir, 'index'), GIT_DIR: join(storeDir, 'git') },
      stdio: 'ignore',
    });
    shell.once('error', reject);
    shell.once('exit', () => resolve());
  });
  const pid = Number(readFileSync(pidFile, 'utf8'));
  strays.push(pid);
  await waitUntil(() => existsSync(join(storeDir, 'index.lock')), 'the orphan to take index.lock', 5_000);
  return pid;
}

describe('reopening a checkpoint store a dead host left', () => {
  it('kills the git still holding index.lock, clears the lock, and checkpoints and rolls back at once', async () => {
    const root = tempDir('mcp-actors-reopen-root-');
    const storeDir = join(tempDir('mcp-actors-reopen-store-'), 'store');
    writeFileSync(join(root, 'a.txt'), 'one');
    const first = await CheckpointStore.open({ root, storeDir });
    const before = await first.checkpoint('before');
    // The host "dies": the store is left as it is, not disposed.
    const orphan = await orphanGit(storeDir);
    expect(leftoverGitProcesses(storeDir)).toContain(orphan);

    const reopened = await CheckpointStore.open({ root, storeDir });
    expect(isProcessAlive(orphan)).toBe(false);
    expect(reopened.list().map((c) => c.id)).toEqual([before.id]);
    writeFileSync(join(root, 'a.txt'), 'two');
    await reopened.checkpoint('after');
    await reopened.rollback(before.id);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one');
    await reopened.dispose();
  });

  it('does not count a git this host is running itself as left over', async () => {
    const storeDir = tempDir('mcp-actors-reopen-mine-');
    const env = { PATH: process.env.PATH, GIT_INDEX_FILE: join(storeDir, 'index') };
    const running = runGitProcess(['-c', 'sleep 0.5'], {
      command: '/bin/sh',
      env,
      errorCode: 'CHECKPOINT_FAILED',
      label: 'sh',
      shownArgs: [],
    });
    await waitUntil(() => liveGroups().size > 0, 'our git to run', 5_000);
    expect(leftoverGitProcesses(storeDir)).toEqual([]);
    await running;
  });
});
