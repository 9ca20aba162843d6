/**
 * The host-exit guarantee, with real processes: nothing the runtime spawns may outlive the host.
 *
 * Each case spawns `test/support/host-process.mjs`, a plain Node host that embeds the built runtime
 * and starts one fixture server forking a long-lived grandchild into its process group (behind
 * `/bin/sh -c` by default, so the group leader, the server and the grandchild are three processes).
 * The host prints their pids, then ends as the case says; afterwards the leader, the server, the
 * grandchild and every member of the group must be gone (zombies count as gone).
 *
 * What ends them is `src/process/process-groups.ts`: a `signal-exit` hook that SIGKILLs every live
 * group on `process.exit()`, an uncaught exception, an unhandled rejection, or a catchable signal
 * the host does not handle itself (signal-exit then re-raises the signal, so the host still dies
 * by it). Nothing can run in the host after a SIGKILL: then the reaper (`src/process/reaper.mjs`),
 * a process of its own that sees its stdin pipe from the host end, kills the groups still listed.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { groupMembers, isProcessAlive } from '../../src/process/process-table.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const hostScript = fileURLToPath(new URL('../support/host-process.mjs', import.meta.url));

/** How long processes get to disappear after the host is gone. */
const GONE_WITHIN_MS = 3_000;

type How = 'exit' | 'throw' | 'rejection' | 'wait' | 'handle-sigterm';
type Mode = 'shell' | 'direct';

interface HostPids {
  /** The server's process group leader (`/bin/sh` in shell mode); also the pgid. */
  readonly leader: number;
  /** The fixture server itself (= leader in direct mode). */
  readonly server: number;
  /** The fixture's grandchild, in the same group, ignoring stdin. */
  readonly grandchild: number;
}

interface HostExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

interface Host {
  readonly child: ChildProcess;
  readonly pids: HostPids;
  /** Resolves with the host's exit; armed at spawn, so it cannot be missed. */
  readonly exited: Promise<HostExit>;
  nextLine(): Promise<string>;
  stderr(): string;
}

/** Everything spawned by the current test, for afterEach to kill if an assertion failed. */
const spawned: { child: ChildProcess; pids?: HostPids }[] = [];

beforeAll(() => {
  if (!existsSync(`${repoRoot}/dist/index.js`) || !existsSync(`${repoRoot}/dist/testing/fixture-server.mjs`)) {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
  }
});

afterEach(async () => {
  const entries = spawned.splice(0);
  for (const { child, pids } of entries) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (!pids) continue;
    if (groupMembers(pids.leader).length > 0) killQuietly(-pids.leader);
    for (const pid of [pids.leader, pids.server, pids.grandchild]) {
      if (isProcessAlive(pid)) killQuietly(pid);
    }
  }
  // Wait for the kills to land, so the next test and the suite's teardown start from a clean table.
  await survivorsAfter(
    entries.flatMap(({ pids }) => (pids ? [pids] : [])),
    GONE_WITHIN_MS,
  );
});

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

async function startHost(how: How, mode: Mode = 'shell'): Promise<Host> {
  // The test's environment is inherited whole, MCP_ACTORS_PID_LOG included: the fixture and the
  // runtime inside the host log their pids there for the suite's global teardown.
  const child = spawn(process.execPath, [hostScript, how, mode], {
    cwd: repoRoot,
    env: { ...process.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const entry: { child: ChildProcess; pids?: HostPids } = { child };
  spawned.push(entry);

  const exited = new Promise<HostExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  // A write to a host that already died must fail the test by its assertions, not crash the worker.
  child.stdin.on('error', () => {});
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });

  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  const nextLine = (): Promise<string> => {
    const queued = lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`host ${how}: no line on stdout within 15 s; stderr:\n${stderr}`)), 15_000);
      waiters.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
      void exited.then(({ code, signal }) => {
        // Lines already written are delivered before 'exit' is seen here in practice; give the
        // reader a moment anyway before calling it a failure.
        setTimeout(() => {
          clearTimeout(timer);
          reject(new Error(`host ${how} exited (code ${code}, signal ${signal}) before printing a line; stderr:\n${stderr}`));
        }, 200);
      });
    });
  };

  const pids = JSON.parse(await nextLine()) as HostPids;
  entry.pids = pids;
  return { child, pids, exited, nextLine, stderr: () => stderr };
}

/** Living processes among the pids and their group, polled until none is left or `limitMs` passes. */
async function survivorsAfter(all: readonly HostPids[], limitMs: number): Promise<number[]> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const alive = new Set<number>();
    for (const pids of all) {
      for (const pid of [pids.leader, pids.server, pids.grandchild]) if (isProcessAlive(pid)) alive.add(pid);
      for (const member of groupMembers(pids.leader)) alive.add(member);
    }
    if (alive.size === 0 || Date.now() >= deadline) return [...alive].sort((a, b) => a - b);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
    }),
  ]);
}

/** The setup is only meaningful if all three processes were alive, in one group, before the exit. */
function expectRunningTree(pids: HostPids, mode: Mode): void {
  expect(Number.isInteger(pids.leader) && Number.isInteger(pids.server) && Number.isInteger(pids.grandchild)).toBe(true);
  if (mode === 'shell') expect(pids.server).not.toBe(pids.leader);
  else expect(pids.server).toBe(pids.leader);
  expect(pids.grandchild).not.toBe(pids.server);
  for (const pid of [pids.leader, pids.server, pids.grandchild]) expect(isProcessAlive(pid)).toBe(true);
  expect(groupMembers(pids.leader)).toEqual(expect.arrayContaining([pids.leader, pids.server, pids.grandchild]));
}

interface ExitCase {
  readonly title: string;
  readonly how: How;
  readonly mode: Mode;
  /** Sent by the test once the host printed its pids. */
  readonly send?: NodeJS.Signals;
  readonly expected: HostExit;
}

const exitCases: ExitCase[] = [
  { title: 'process.exit(0)', how: 'exit', mode: 'shell', expected: { code: 0, signal: null } },
  { title: 'process.exit(0), server leading its own group', how: 'exit', mode: 'direct', expected: { code: 0, signal: null } },
  { title: 'an uncaught exception', how: 'throw', mode: 'shell', expected: { code: 1, signal: null } },
  { title: 'an unhandled promise rejection', how: 'rejection', mode: 'shell', expected: { code: 1, signal: null } },
  { title: 'SIGTERM (re-raised after cleanup)', how: 'wait', mode: 'shell', send: 'SIGTERM', expected: { code: null, signal: 'SIGTERM' } },
  {
    title: 'SIGTERM, server leading its own group',
    how: 'wait',
    mode: 'direct',
    send: 'SIGTERM',
    expected: { code: null, signal: 'SIGTERM' },
  },
  { title: 'SIGINT (re-raised after cleanup)', how: 'wait', mode: 'shell', send: 'SIGINT', expected: { code: null, signal: 'SIGINT' } },
  { title: 'SIGHUP (re-raised after cleanup)', how: 'wait', mode: 'shell', send: 'SIGHUP', expected: { code: null, signal: 'SIGHUP' } },
];

describe('nothing the runtime spawns outlives its host', () => {
  it.each(exitCases)('$title: the leader, the server and the grandchild are gone', async ({ how, mode, send, expected }) => {
    const host = await startHost(how, mode);
    expectRunningTree(host.pids, mode);

    if (send) host.child.kill(send);
    else host.child.stdin!.write('go\n');
    const exit = await withTimeout(host.exited, 5_000, `the host's exit (${how}${send ? ` + ${send}` : ''})`);

    expect(exit, host.stderr()).toEqual(expected);
    expect(await survivorsAfter([host.pids], GONE_WITHIN_MS)).toEqual([]);
  });

  it('a host that handles SIGTERM itself is not killed by it, nor are its servers', async () => {
    const host = await startHost('handle-sigterm');
    expectRunningTree(host.pids, 'shell');

    host.child.kill('SIGTERM');
    expect(JSON.parse(await host.nextLine())).toEqual({ handled: 1 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // signal-exit sees a listener that is not its own and stays out of the way: the host lives on,
    // and so do the servers it still owns.
    expect(host.child.exitCode).toBeNull();
    expect(host.child.signalCode).toBeNull();
    expect(isProcessAlive(host.child.pid!)).toBe(true);
    expectRunningTree(host.pids, 'shell');

    // The host's own handler ends it with process.exit(3): the exit hook cleans up then.
    host.child.kill('SIGTERM');
    expect(await withTimeout(host.exited, 5_000, "the host's exit on the second SIGTERM")).toEqual({ code: 3, signal: null });
    expect(await survivorsAfter([host.pids], GONE_WITHIN_MS)).toEqual([]);
  });

  it.each<Mode>(['shell', 'direct'])(
    'SIGKILL of the host (%s): no hook can run in the host, and the reaper kills the whole group',
    async (mode) => {
      const host = await startHost('wait', mode);
      expectRunningTree(host.pids, mode);

      host.child.kill('SIGKILL');
      expect(await withTimeout(host.exited, 5_000, "the host's exit on SIGKILL")).toEqual({ code: null, signal: 'SIGKILL' });

      // The grandchild reads no stdin and its parent's death does not reach it: only the reaper,
      // seeing its own stdin from the dead host end, can end it.
      expect(await survivorsAfter([host.pids], GONE_WITHIN_MS)).toEqual([]);
    },
  );
});
