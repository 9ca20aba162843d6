/**
 * Runs test/support/link-race.mjs (as this user, or as nobody through setpriv) and returns its
 * summary. Shared by the quick race test in npm test and the long ones of `npm run test:confine`.
 */
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findBwrap } from '../../src/process/confinement/probe.js';

const SCRIPT = fileURLToPath(new URL('./link-race.mjs', import.meta.url));

export interface RaceSummary {
  readonly race: 'planted' | 'flipping';
  readonly mode: 'confined' | 'unconfined';
  readonly uid: number;
  readonly confinement: { readonly confined: boolean; readonly state: string } | undefined;
  readonly calls: number;
  /** Files the server wrote outside the sandbox. */
  readonly outside: readonly string[];
  /** Files outside the sandbox, there before the race, that are gone after it. */
  readonly lost: readonly string[];
  /** Calls whose outcome does not match the disk. */
  readonly mismatches: readonly Record<string, unknown>[];
  readonly escapeEvents: number;
  readonly counts: Readonly<Record<string, number>>;
}

export function requireBwrap(): void {
  if (findBwrap(process.env.PATH) === undefined) {
    throw new Error('bubblewrap (bwrap) is not installed and these tests need it: apt-get install -y bubblewrap');
  }
}

/** The atomic swaps of the races (renameat2, which Node cannot call) are made by python3 scripts. */
export function requirePython(): void {
  if (spawnSync('python3', ['-c', 'import ctypes'], { stdio: 'ignore' }).status !== 0) {
    throw new Error('python3 (with ctypes) is needed for the atomic swap of this race: apt-get install -y python3');
  }
}

export async function runLinkRace(
  race: 'planted' | 'flipping',
  mode: 'confined' | 'unconfined',
  writes: number,
  options: { unprivileged?: boolean; untilEscape?: boolean } = {},
): Promise<RaceSummary> {
  const args = [SCRIPT, race, mode, String(writes), ...(options.untilEscape ? ['untilEscape'] : [])];
  let home: string | undefined;
  let command = process.execPath;
  let argv = args;
  const env: Record<string, string | undefined> = { ...process.env };
  if (options.unprivileged) {
    home = mkdtempSync(join(tmpdir(), 'mcp-actors-nobody-'));
    chmodSync(home, 0o777);
    command = 'setpriv';
    argv = ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...args];
    env.HOME = home;
    delete env.MCP_ACTORS_PID_LOG; // a root-owned file: nobody cannot append to it
  }
  try {
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(command, argv, { env, maxBuffer: 64 * 1024 * 1024, timeout: 20 * 60_000 }, (error, out, err) => {
        if (error) reject(new Error(`link-race.mjs ${race} ${mode} failed: ${error.message}\n${err}`));
        else resolve(out);
      });
    });
    const last = stdout.trim().split('\n').pop() ?? '';
    return JSON.parse(last) as RaceSummary;
  } finally {
    if (home) rmSync(home, { recursive: true, force: true });
  }
}
