/**
 * The set of process groups this runtime spawned and has not yet seen die. Every group is killed
 * synchronously if the host process exits (normally or by a catchable signal, via `signal-exit`),
 * so no server outlives its host. Nothing can run in the host after a SIGKILL, so a reaper — one
 * small process per host, in its own group, told of every group as it comes and goes — kills
 * what is left when its stdin (a pipe from the host) ends; see `reaper.mjs`. Git processes of the
 * checkpoint store are tracked here too. The reaper lives while any group is tracked and
 * `REAPER_LINGER_MS` after the last one ended; `retireReaper()` ends it at once. Directories being
 * removed in the background (a disposed sandbox's worktree) are the reaper's too: if the host dies
 * before a removal ends, the reaper finishes it.
 *
 * When `MCP_ACTORS_PID_LOG` names a file, each spawned group is appended to it (`<pid> <pgid>`):
 * the test suite's teardown uses it to prove nothing was left behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onExit } from 'signal-exit';

const live = new Set<number>();
/** Directories being removed in the background (`removeInBackground`); the reaper finishes them if the host dies first. */
const removals = new Set<string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  onExit(() => {
    for (const pgid of live) killGroup(pgid, 'SIGKILL');
    // The reaper (its stdin ends with this process) removes what is left; without one, it is done here.
    if (reaperUnavailable || !reaper) for (const dir of removals) rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
  });
}

/** What a background removal's directory must be called, so the reaper never removes anything else. */
export const TRASH_PREFIX = 'mcp-actors-trash-';

/**
 * Removes `dir` (named `TRASH_PREFIX…`: renamed aside first by the caller) without waiting: the
 * caller returns at once whatever the size. Should the host exit first — or die, even by SIGKILL —
 * the reaper finishes the removal.
 */
export function removeInBackground(dir: string): Promise<void> {
  if (!basename(dir).startsWith(TRASH_PREFIX)) throw new Error(`removeInBackground: ${dir} is not a trash directory (${TRASH_PREFIX}…)`);
  installExitHook();
  clearTimeout(retireTimer);
  retireTimer = undefined;
  removals.add(dir);
  tellReaper(`!${dir}\n`);
  return rm(dir, { recursive: true, force: true, maxRetries: 2 })
    .catch(() => undefined)
    .finally(() => {
      removals.delete(dir);
      tellReaper(`~${dir}\n`);
      if (live.size > 0 || removals.size > 0) return;
      // `shutdown()` asked for the reaper to go while this removal ran: it goes now.
      if (retireAsked) endReaper();
      else scheduleRetirement();
    });
}

/** Background removals still running (for `runtime.shutdown()` and tests). */
export function pendingRemovals(): ReadonlySet<string> {
  return removals;
}

let reaper: ChildProcess | undefined;
let reaperUnavailable = false;
let retireTimer: NodeJS.Timeout | undefined;
/** `retireReaper()` was called while background removals ran: the last one to end ends the reaper. */
let retireAsked = false;

/**
 * How long the reaper stays after the last group ended: a run of sandboxed writes (three git
 * processes each) or a restart must not respawn it every time.
 */
export const REAPER_LINGER_MS = 3_000;

/** Starts the reaper when needed; best effort — without it, only a SIGKILL of the host can leak. */
function tellReaper(line: string): void {
  // A process that dies with its parent anyway (the confined rollback worker, in bubblewrap with
  // --die-with-parent and its own PID namespace) needs no reaper of its own.
  if (reaperUnavailable || process.env.MCP_ACTORS_NO_REAPER === '1') return;
  if (!reaper) {
    const script = fileURLToPath(new URL('./reaper.mjs', import.meta.url));
    if (!existsSync(script)) {
      reaperUnavailable = true;
      return;
    }
    let started: ChildProcess;
    try {
      started = spawn(process.execPath, [script], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    } catch {
      // ENOMEM and the like: try again with the next group.
      return;
    }
    // Out of descriptors or processes (EMFILE, EAGAIN): the next group tries again and tells it all.
    started.on('error', () => {
      if (reaper === started) reaper = undefined;
    });
    started.on('exit', () => {
      if (reaper === started) reaper = undefined;
    });
    if (!started.stdin) return;
    started.stdin.on('error', () => undefined);
    reaper = started;
    // Neither the reaper nor its pipe may keep the host's event loop alive.
    started.unref();
    (started.stdin as unknown as { unref?: () => void }).unref?.();
    for (const pgid of live) if (`+${pgid}\n` !== line) started.stdin.write(`+${pgid}\n`);
    for (const dir of removals) if (`!${dir}\n` !== line) started.stdin.write(`!${dir}\n`);
  }
  reaper.stdin?.write(line);
}

/** Ends the reaper (it exits when its stdin ends; its list is empty, so it kills nothing). */
function endReaper(): ChildProcess | undefined {
  clearTimeout(retireTimer);
  retireTimer = undefined;
  const ending = reaper;
  reaper = undefined;
  ending?.stdin?.end();
  return ending;
}

function scheduleRetirement(): void {
  clearTimeout(retireTimer);
  retireTimer = setTimeout(() => {
    retireTimer = undefined;
    if (live.size === 0 && removals.size === 0) endReaper();
  }, REAPER_LINGER_MS);
  retireTimer.unref();
}

/**
 * Ends the reaper now if no group is tracked, and resolves once it has exited (at most about a
 * second; SIGKILL after that). `runtime.shutdown()` calls it, so no child of the host is left.
 * With groups still tracked it does nothing: the reaper is still guarding them.
 */
export async function retireReaper(): Promise<void> {
  retireAsked = removals.size > 0;
  if (live.size > 0 || removals.size > 0 || !reaper) return;
  const ending = endReaper();
  if (!ending || ending.exitCode !== null || ending.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      ending.kill('SIGKILL');
      resolve();
    }, 1_000);
    ending.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The reaper's pid while one runs (for tests and orphan checks). */
export function reaperPid(): number | undefined {
  return reaper?.pid;
}

/**
 * Records a freshly spawned group leader (`detached: true`, so pgid = pid). `log: false` keeps it
 * out of MCP_ACTORS_PID_LOG: short-lived git processes come by the thousand, and their pids are
 * recycled long before the suite's teardown would check them.
 */
export function trackGroup(pgid: number, options: { log?: boolean } = {}): void {
  installExitHook();
  retireAsked = false;
  clearTimeout(retireTimer);
  retireTimer = undefined;
  live.add(pgid);
  tellReaper(`+${pgid}\n`);
  const log = process.env.MCP_ACTORS_PID_LOG;
  if (log && options.log !== false) {
    try {
      appendFileSync(log, `${pgid} ${pgid}\n`);
    } catch {
      // The log is a test aid; failing to write it must not fail a spawn.
    }
  }
}

/** Forgets a group once it is known to be empty. */
export function untrackGroup(pgid: number): void {
  if (!live.delete(pgid)) return;
  tellReaper(`-${pgid}\n`);
  if (live.size === 0) scheduleRetirement();
}

/** Groups spawned and not yet known to be gone. */
export function liveGroups(): ReadonlySet<number> {
  return live;
}

/** Sends `signal` to every process of the group; false if the group no longer exists. */
export function killGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}
