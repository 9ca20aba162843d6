/**
 * A confined server's whole tree dies with its host, even when the host is SIGKILLed and the
 * reaper (the runtime's watchdog for that case) is gone too: bwrap's --die-with-parent and the
 * server's own PID namespace take it down, forked grandchild included. The same host with
 * `confine: false` leaves its tree behind, which shows the test can fail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findBwrap } from '../../src/process/confinement/probe.js';
import { isProcessAlive, readProcStat } from '../../src/process/process-table.js';
import { waitUntil } from '../support/wait.js';

const HOST = fileURLToPath(new URL('../support/confine-host.mjs', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'mcp-actors-confine-kill-'));
const leftovers: number[] = [];

afterAll(() => {
  for (const pid of leftovers) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  rmSync(root, { recursive: true, force: true });
  // A SIGKILLed host cannot remove its server's own temp dir: the test does.
  for (const entry of readdirSync(tmpdir())) {
    if (entry.startsWith('mcp-actors-confined-confine-host-')) rmSync(join(tmpdir(), entry), { recursive: true, force: true });
  }
});

/** Every process whose parent chain leads to `pid` (from /proc), `pid` excluded. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    const child = Number(entry);
    if (!Number.isInteger(child)) continue;
    const stat = readProcStat(child);
    if (stat && stat.state !== 'Z') parents.set(child, stat.ppid);
  }
  const found: number[] = [];
  const walk = (parent: number): void => {
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

async function startHost(mode: 'confined' | 'unconfined'): Promise<{ host: ChildProcess; leader: number }> {
  const host = spawn(process.execPath, [HOST, mode, root], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    host.stdout.on('data', (chunk: Buffer) => {
      buffer += String(chunk);
      if (buffer.includes('\n')) resolve(buffer.split('\n')[0] ?? '');
    });
    host.once('exit', (code) => reject(new Error(`the host exited early (code ${code})`)));
  });
  return { host, leader: (JSON.parse(line) as { leader: number }).leader };
}

/** Kills the host's reaper first: what is measured is confinement alone. */
async function killReaperOf(hostPid: number): Promise<void> {
  const reapers = descendants(hostPid).filter((pid) => cmdline(pid).includes('reaper.mjs'));
  for (const pid of reapers) process.kill(pid, 'SIGKILL');
  await waitUntil(() => reapers.every((pid) => !isProcessAlive(pid)), 'the reaper to die', 5_000);
}

describe('a confined server whose host is SIGKILLed', () => {
  it('is gone within a second with the reaper disabled, its forked grandchild too', async () => {
    if (findBwrap(process.env.PATH) === undefined) throw new Error('bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap');
    const { host, leader } = await startHost('confined');
    await killReaperOf(host.pid!);
    const tree = [leader, ...descendants(leader)];
    // bwrap, its namespace init, the server and the grandchild at least.
    expect(tree.length).toBeGreaterThanOrEqual(4);
    expect(tree.some((pid) => cmdline(pid).includes('setInterval'))).toBe(true);
    leftovers.push(...tree);
    host.kill('SIGKILL');
    const killedAt = Date.now();
    await waitUntil(() => tree.every((pid) => !isProcessAlive(pid)), `the confined tree ${tree.join(', ')} to die`, 5_000);
    expect(Date.now() - killedAt).toBeLessThan(1_000);
  });

  it('unconfined, the same tree outlives its host (so the test above can fail)', async () => {
    const { host, leader } = await startHost('unconfined');
    await killReaperOf(host.pid!);
    const tree = [leader, ...descendants(leader)];
    leftovers.push(...tree);
    expect(tree.some((pid) => cmdline(pid).includes('setInterval'))).toBe(true);
    host.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(tree.filter((pid) => isProcessAlive(pid)).length).toBeGreaterThan(0);
  });
});
