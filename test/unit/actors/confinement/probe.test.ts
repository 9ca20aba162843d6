/**
 * The bubblewrap probe is asked once a PATH, and its answer kept, except when the probe run was
 * killed or timed out (a loaded machine): that says nothing about the machine, and kept, it would
 * turn confinement off for the rest of the process.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeConfinement, resetConfinementProbes } from '../../../../src/actors/confinement/probe.js';

const temps: string[] = [];
afterEach(() => {
  resetConfinementProbes();
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A PATH whose only `bwrap` runs `body` after noting each run in a file; returns both. */
function fakeBwrap(body: string): { path: string; runs: () => number } {
  const dir = mkdtempSync(join(tmpdir(), 'fake-bwrap-'));
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

  it('asks again after a probe that was killed', () => {
    const fake = fakeBwrap('kill -9 $$');
    const first = probeConfinement(fake.path);
    expect(first).toMatchObject({ available: false, reason: expect.stringContaining('killed by SIGKILL') });
    probeConfinement(fake.path);
    expect(fake.runs()).toBe(2);
  });
});
