/**
 * The bubblewrap probe is asked once a PATH, and its answer kept, except when the probe run was
 * killed or timed out (a loaded machine): that says nothing about the machine, and kept, it would
 * turn confinement off for the rest of the process.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeConfinement, resetConfinementProbes } from '../../../../src/process/confinement/probe.js';
import { outsideTempDir } from '../../../support/outside-temp.js';
import { stringContaining } from '../../../support/matchers.js';

const FAKES = outsideTempDir();
const temps: string[] = [];
afterEach(() => {
  resetConfinementProbes();
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A PATH whose only `bwrap` runs `body` after noting each run in a file; returns both. Outside the
 * temp dir: the probe passes over a `bwrap` there (a sandbox could have put it there).
 */
function fakeBwrap(body: string): { path: string; runs: () => number } {
  mkdirSync(FAKES, { recursive: true });
  const dir = mkdtempSync(join(FAKES, 'fake-bwrap-'));
  temps.push(dir);
  const log = join(dir, 'runs');
  writeFileSync(join(dir, 'bwrap'), `#!/bin/sh\necho run >> '${log}'\n${body}\n`);
  chmodSync(join(dir, 'bwrap'), 0o755);
  return { path: `${dir}:/usr/bin:/bin`, runs: () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length };
}

describe('probeConfinement (Linux)', () => {
  it('keeps a failed answer: the probe runs once', () => {
    const fake = fakeBwrap('exit 1');
    expect(probeConfinement(fake.path).available).toBe(false);
    expect(probeConfinement(fake.path).available).toBe(false);
    expect(fake.runs()).toBe(1);
  });

  it('tries a killed probe again (three runs), says the answer is transient, and asks again next time', () => {
    const fake = fakeBwrap('kill -9 $$');
    const first = probeConfinement(fake.path);
    expect(first).toMatchObject({ available: false, transient: true, reason: stringContaining('killed by SIGKILL') });
    expect(fake.runs()).toBe(3);
    probeConfinement(fake.path);
    expect(fake.runs()).toBe(6);
  });

  it('a probe killed once and then passing is available', () => {
    const fake = fakeBwrap(`[ -e "$0.once" ] && exit 0; touch "$0.once"; kill -9 $$`);
    expect(probeConfinement(fake.path)).toMatchObject({ available: true });
    expect(fake.runs()).toBe(2);
  });

  it('passes over a bwrap that a sandbox or a project could have placed: under the temp dir, in node_modules, relative', () => {
    const planted = (dir: string): string => {
      mkdirSync(dir, { recursive: true });
      temps.push(dir);
      writeFileSync(join(dir, 'bwrap'), '#!/bin/sh\nexit 0\n');
      chmodSync(join(dir, 'bwrap'), 0o755);
      return dir;
    };
    const inTemp = planted(mkdtempSync(join(tmpdir(), 'sandbox-tools-')));
    const inModules = planted(join(FAKES, 'project', 'node_modules', '.bin'));
    for (const dir of [inTemp, inModules, 'tools']) {
      const probe = probeConfinement(`${dir}:/nonexistent`);
      // The planted script would "pass" the probe (exit 0): found, it would be the confiner.
      expect(probe).toMatchObject({ available: false, reason: stringContaining('not on the PATH') });
    }
  });
});
