/**
 * Can this machine confine a server? Found out once per PATH by a probe run: `bwrap` is looked up
 * on the PATH the server would be started with, and a real confinement (read-only root, own PID
 * and network namespaces, die-with-parent) runs `sh -c :`. Anything short of exit 0 — no bwrap,
 * user namespaces disabled, a seccomp profile that forbids them (Docker's default) — is "unavailable",
 * with the reason and what to install.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, relative, resolve, sep } from 'node:path';

export type ConfinementProbe =
  | { readonly available: true; readonly bwrap: string }
  | {
      readonly available: false;
      readonly reason: string;
      readonly install: string;
      /** The probe run timed out or was killed (a loaded machine): it says nothing about the machine. */
      readonly transient?: true;
    };

/** What to install, said the same way everywhere. */
export const INSTALL_BUBBLEWRAP =
  'install bubblewrap (Debian/Ubuntu: apt-get install -y bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap) ' +
  'and make sure unprivileged user namespaces are enabled (sysctl kernel.unprivileged_userns_clone=1)';

const PROBE_TIMEOUT_MS = 5_000;
const PROBE_ATTEMPTS = 3;
const probes = new Map<string, ConfinementProbe>();

/**
 * The first executable `bwrap` on `pathValue`, or undefined. Folders a project or a server could
 * have filled are passed over — relative entries, anything under the temp dir (where sandboxes
 * live) and any `node_modules` (npm scripts put the project's `node_modules/.bin` first) — so a
 * `bwrap` shipped in a cloned project cannot stand in for the real one.
 */
export function findBwrap(pathValue: string | undefined): string | undefined {
  const temp = tmpdir();
  for (const dir of (pathValue ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir) || isUnder(resolve(dir), temp) || resolve(dir).split(sep).includes('node_modules')) continue;
    const candidate = join(dir, 'bwrap');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * @example
 * const probe = probeConfinement(process.env.PATH);
 * if (!probe.available) console.warn(probe.reason);
 */
export function probeConfinement(pathValue: string | undefined): ConfinementProbe {
  const key = pathValue ?? '';
  const cached = probes.get(key);
  if (cached) return cached;
  let { probe, transient } = runProbe(pathValue);
  // A run cut short says nothing: tried again, a few times, before the answer is "unavailable".
  for (let attempt = 1; transient && attempt < PROBE_ATTEMPTS; attempt += 1) ({ probe, transient } = runProbe(pathValue));
  // A probe that timed out or was killed (a loaded machine) says nothing about this machine: asked
  // again next time. Cached, it would have turned confinement off for the rest of the process.
  if (!transient) probes.set(key, probe);
  return probe;
}

function runProbe(pathValue: string | undefined): { probe: ConfinementProbe; transient: boolean } {
  if (process.platform !== 'linux') {
    const reason = `OS confinement is implemented with bubblewrap on Linux only (this is ${process.platform})`;
    return { probe: { available: false, reason, install: 'run on Linux with bubblewrap installed' }, transient: false };
  }
  const bwrap = findBwrap(pathValue);
  if (bwrap === undefined) {
    return { probe: { available: false, reason: 'bubblewrap (bwrap) is not on the PATH', install: INSTALL_BUBBLEWRAP }, transient: false };
  }
  const run = spawnSync(
    bwrap,
    [
      '--die-with-parent',
      '--unshare-pid',
      '--unshare-net',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      tmpdir(),
      '--',
      '/bin/sh',
      '-c',
      ':',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], timeout: PROBE_TIMEOUT_MS, env: { PATH: pathValue ?? '' } },
  );
  if (run.status === 0) return { probe: { available: true, bwrap }, transient: false };
  const output = run.stderr as Buffer | null; // null when bwrap could not be started at all
  const stderr =
    String(output ?? '')
      .trim()
      .split('\n')[0] ?? '';
  const why = run.error ? run.error.message : run.signal ? `killed by ${run.signal}` : `exit ${run.status}${stderr ? `: ${stderr}` : ''}`;
  const transient = run.error !== undefined || run.signal !== null;
  const reason = `a probe run of bubblewrap (${bwrap}) failed (${why})`;
  const probe: ConfinementProbe = transient
    ? { available: false, reason, install: INSTALL_BUBBLEWRAP, transient: true }
    : { available: false, reason, install: INSTALL_BUBBLEWRAP };
  return { probe, transient };
}

function isUnder(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Forgets the probes (tests that change PATH or install bwrap). */
export function resetConfinementProbes(): void {
  probes.clear();
}
