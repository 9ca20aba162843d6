/**
 * Reading the process table: is a pid alive, which processes are in a group. Linux reads
 * `/proc/<pid>/stat` (a zombie, state Z, counts as gone: it has exited and only waits to be
 * reaped); elsewhere it falls back to `kill(pid, 0)`.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcStat {
  readonly pid: number;
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
}

const hasProc = process.platform === 'linux';

/** Parses `/proc/<pid>/stat`; the command name may contain spaces and parentheses. */
export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  return { pid, state: fields[0] ?? '?', ppid: Number(fields[1]), pgrp: Number(fields[2]) };
}

/** True while the process exists and is not a zombie. */
export function isProcessAlive(pid: number): boolean {
  if (hasProc) {
    const stat = readProcStat(pid);
    return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Living (non-zombie) members of a process group. Empty where `/proc` is unavailable. */
export function groupMembers(pgid: number): number[] {
  if (!hasProc) return isProcessAlive(pgid) ? [pgid] : [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    // Out of descriptors (EMFILE): the group exists while any member does, zombies included.
    try {
      process.kill(-pgid, 0);
      return [pgid];
    } catch {
      return [];
    }
  }
  const members: number[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = readProcStat(pid);
    if (stat && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') members.push(pid);
  }
  return members;
}
