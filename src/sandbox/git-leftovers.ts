/**
 * What a dead host's git leaves in a checkpoint store: a git process still running (its host was
 * SIGKILLed mid-rollback) and the `index.lock` it holds. A reopen must neither fail on that lock
 * nor race the old git for it. The reaper kills such a git within moments of its host's death;
 * this waits for it, kills what is left after a short while, and then clears the lock.
 *
 * Such a git is found by its environment: every git the store runs has `GIT_INDEX_FILE` (and
 * `GIT_DIR`) inside the store directory. A store is private to one host, so a git of it that this
 * host did not spawn belongs to a host that is gone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { liveGroups } from '../process/process-groups.js';
import { isProcessAlive, readProcStat } from '../process/process-table.js';

/** How long a leftover git gets to die (from the reaper) before it is SIGKILLed here. */
export const LEFTOVER_GIT_WAIT_MS = 1_000;

/** Processes not spawned by this host whose git environment points into `storeDir` (Linux only). */
export function leftoverGitProcesses(storeDir: string): number[] {
  if (process.platform !== 'linux') return [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const prefix = storeDir.endsWith('/') ? storeDir : `${storeDir}/`;
  const found: number[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const stat = readProcStat(pid);
    if (!stat || stat.state === 'Z' || stat.state === 'X') continue;
    if (stat.ppid === process.pid || liveGroups().has(stat.pgrp)) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue;
    }
    for (const variable of environ.split('\0')) {
      if (
        (variable.startsWith('GIT_INDEX_FILE=') || variable.startsWith('GIT_DIR=')) &&
        variable.slice(variable.indexOf('=') + 1).startsWith(prefix)
      ) {
        found.push(pid);
        break;
      }
    }
  }
  return found;
}

/**
 * Waits up to `waitMs` for leftover gits of `storeDir` to end, SIGKILLs any still alive, then
 * removes `index.lock`. Resolves with the pids that were found.
 *
 * @example
 * await clearLeftoverGit(storeDir); // before the first git command of a reopened store
 */
export async function clearLeftoverGit(storeDir: string, waitMs: number = LEFTOVER_GIT_WAIT_MS): Promise<number[]> {
  const found = leftoverGitProcesses(storeDir);
  const deadline = Date.now() + waitMs;
  let alive = found;
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    alive = alive.filter(isProcessAlive);
  }
  for (const pid of alive) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  const killDeadline = Date.now() + 2_000;
  while (alive.some(isProcessAlive) && Date.now() < killDeadline) await new Promise((resolve) => setTimeout(resolve, 10));
  await rm(join(storeDir, 'index.lock'), { force: true });
  return found;
}
