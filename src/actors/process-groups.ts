/**
 * The set of process groups this runtime spawned and has not yet seen die. Every group is killed
 * synchronously if the host process exits (normally or by a catchable signal, via `signal-exit`),
 * so no server outlives its host. Nothing can run in the host after a SIGKILL, so a reaper — one
 * small process per host, in its own group, told of every group as it comes and goes — kills
 * what is left when its stdin (a pipe from the host) ends; see `reaper.mjs`.
 *
 * When `MCP_ACTORS_PID_LOG` names a file, each spawned group is appended to it (`<pid> <pgid>`):
 * the test suite's teardown uses it to prove nothing was left behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { onExit } from 'signal-exit';

const live = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  onExit(() => {
    for (const pgid of live) killGroup(pgid, 'SIGKILL');
  });
}

let reaper: ChildProcess | undefined;
let reaperUnavailable = false;

/** Starts the reaper once; best effort — without it, only a SIGKILL of the host can leak. */
function tellReaper(line: string): void {
  if (reaperUnavailable) return;
  if (!reaper) {
    const script = fileURLToPath(new URL('./reaper.mjs', import.meta.url));
    if (!existsSync(script)) {
      reaperUnavailable = true;
      return;
    }
    try {
      reaper = spawn(process.execPath, [script], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    } catch {
      reaperUnavailable = true;
      return;
    }
    reaper.on('error', () => {
      reaperUnavailable = true;
      reaper = undefined;
    });
    reaper.on('exit', () => {
      reaper = undefined;
    });
    reaper.stdin?.on('error', () => undefined);
    // Neither the reaper nor its pipe may keep the host's event loop alive.
    reaper.unref();
    (reaper.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    for (const pgid of live) if (`+${pgid}\n` !== line) reaper.stdin?.write(`+${pgid}\n`);
  }
  reaper?.stdin?.write(line);
}

/** Records a freshly spawned group leader (`detached: true`, so pgid = pid). */
export function trackGroup(pgid: number): void {
  installExitHook();
  live.add(pgid);
  tellReaper(`+${pgid}\n`);
  const log = process.env.MCP_ACTORS_PID_LOG;
  if (log) {
    try {
      appendFileSync(log, `${pgid} ${pgid}\n`);
    } catch {
      // The log is a test aid; failing to write it must not fail a spawn.
    }
  }
}

/** Forgets a group once it is known to be empty. */
export function untrackGroup(pgid: number): void {
  if (live.delete(pgid)) tellReaper(`-${pgid}\n`);
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
