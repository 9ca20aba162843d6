/**
 * Suite-wide guard: every process group the runtime spawns during the run is logged (see
 * `src/process/process-groups.ts`, and the fixture server logs itself and its grandchild too). At
 * the end, any of them still alive fails the run — after being killed, so one failure does not
 * leave debris for the next run. A logged pid is only ours while it is in the group it was logged
 * with, or in the runner's own (a fixture spawned without `detached`): pids are recycled (pid_max
 * is 32,768 here), and a fresh clone's run beside another once killed the other run's eslint, whose
 * pid had been a server's. Vitest reports a teardown's throw but exits 0, so a failure also sets
 * the exit code.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { groupMembers, isProcessAlive, readProcStat } from '../../src/process/process-table.js';

export default function setup(): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-actors-pids-'));
  const log = join(dir, 'pids.log');
  writeFileSync(log, '');
  process.env.MCP_ACTORS_PID_LOG = log;

  return async () => {
    const entries = readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ').map(Number) as [number, number]);
    const runnerGroup = readProcStat(process.pid)?.pgrp;
    const survivors = await waitForSurvivors(entries, runnerGroup, 3_000);
    rmSync(dir, { recursive: true, force: true });
    if (survivors.length > 0) {
      const groups = new Set([...entries.map(([, pgid]) => pgid), ...(runnerGroup === undefined ? [] : [runnerGroup])]);
      for (const pid of survivors) {
        // Only what is still in a group the tests started: a recycled pid belongs to someone else.
        if (!groups.has(readProcStat(pid)?.pgrp ?? -1)) continue;
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      process.exitCode = 1;
      throw new Error(`processes started by the tests were still alive after the run (killed now): ${survivors.join(', ')}`);
    }
  };
}

async function waitForSurvivors(entries: [number, number][], runnerGroup: number | undefined, graceMs: number): Promise<number[]> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const alive = new Set<number>();
    for (const [pid, pgid] of entries) {
      // Alive and still in its group (or the runner's): the same process, not another given its pid since.
      const group = isProcessAlive(pid) ? readProcStat(pid)?.pgrp : undefined;
      if (group !== undefined && (group === pgid || group === runnerGroup)) alive.add(pid);
      for (const member of groupMembers(pgid)) alive.add(member);
    }
    if (alive.size === 0 || Date.now() > deadline) return [...alive];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
