/**
 * Orphan and leak checks for tests of a host: the processes a runtime spawned, the children of a
 * process, the listeners on a signal or emitter, and the handles keeping the event loop alive.
 */
import { getEventListeners, type EventEmitter } from 'node:events';
import { readdirSync } from 'node:fs';
import { liveGroups, reaperPid } from '../process/process-groups.js';
import { groupMembers, readProcStat } from '../process/process-table.js';

/**
 * Every living (non-zombie) descendant of `pid` (default: this process), children first. Linux
 * only (`/proc`); elsewhere empty.
 *
 * @example
 * await runtime.shutdown();
 * expect(descendantsOf()).toEqual([]);
 */
export function descendantsOf(pid: number = process.pid): number[] {
  if (process.platform !== 'linux') return [];
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const child = Number(entry);
    if (!Number.isInteger(child)) continue;
    const stat = readProcStat(child);
    if (!stat || stat.state === 'Z' || stat.state === 'X') continue;
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push(child);
    children.set(stat.ppid, siblings);
  }
  const found: number[] = [];
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

export interface SpawnedProcesses {
  /** Process groups (servers, git) this host's runtime spawned and has not seen end. */
  readonly groups: readonly number[];
  /** Living members of those groups (a launcher's grandchildren included). */
  readonly members: readonly number[];
  /** The reaper, while one runs. */
  readonly reaper: number | undefined;
}

/**
 * What the runtimes of this host process spawned and is still alive: after `shutdown()` every list
 * is empty and `reaper` is undefined.
 *
 * @example
 * expect(spawnedProcesses()).toEqual({ groups: [], members: [], reaper: undefined });
 */
export function spawnedProcesses(): SpawnedProcesses {
  const groups = [...liveGroups()];
  return { groups, members: groups.flatMap(groupMembers), reaper: reaperPid() };
}

/** Listeners of `type` on an `EventTarget` (an `AbortSignal`) or an `EventEmitter`. */
export function listenerCount(target: EventTarget | EventEmitter, type: string): number {
  return getEventListeners(target, type).length;
}

/**
 * The resources keeping the event loop alive, by kind (`Timeout`, `PipeWrap`, `TCPSocketWrap`,
 * `ProcessWrap`, ...), from `process.getActiveResourcesInfo()`.
 *
 * @example
 * const before = openHandles();
 * // ... a thousand cycles ...
 * expect(openHandles()).toEqual(before);
 */
export function openHandles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}
