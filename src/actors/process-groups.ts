/**
 * The set of process groups this runtime spawned and has not yet seen die. Every group is killed
 * synchronously if the host process exits (normally or by a catchable signal, via `signal-exit`),
 * so no server outlives its host. Nothing can run after SIGKILL of the host; a stdio server then
 * sees its stdin close, which is the MCP signal to exit.
 *
 * When `MCP_ACTORS_PID_LOG` names a file, each spawned group is appended to it (`<pid> <pgid>`):
 * the test suite's teardown uses it to prove nothing was left behind.
 */
import { appendFileSync } from 'node:fs';
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

/** Records a freshly spawned group leader (`detached: true`, so pgid = pid). */
export function trackGroup(pgid: number): void {
  installExitHook();
  live.add(pgid);
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
  live.delete(pgid);
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
