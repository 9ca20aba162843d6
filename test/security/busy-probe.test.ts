/**
 * Attack surface: a loaded machine. A bubblewrap probe that times out or is killed used to read as
 * "no bubblewrap here", so a sandboxed server that did not ask for confinement ran unconfined, and a
 * sandbox's `git add` ran outside its box, where a server swapping a folder for a link to `~/.ssh`
 * got the key into the diff (seen twice in about 2,000 attacked diffs under CI load). A probe cut
 * short is tried again and, still cut short, refuses instead of running anything unconfined.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideConfinement } from '../../src/process/confinement/confinement-plan.js';
import { resetConfinementProbes } from '../../src/process/confinement/probe.js';
import { isMcpActorsError } from '../../src/errors/index.js';
import { Sandbox } from '../../src/sandbox/sandbox.js';
import { createGitProject } from '../support/git-project.js';
import { outsideTempDir } from '../support/outside-temp.js';

const FAKES = outsideTempDir();
let fakes: string;
let busyPath: string;
const hostPath = process.env.PATH;

beforeAll(() => {
  mkdirSync(FAKES, { recursive: true });
  fakes = mkdtempSync(join(FAKES, 'busy-bwrap-'));
  // A bwrap whose every run is killed, as a probe timed out on a busy machine is.
  writeFileSync(join(fakes, 'bwrap'), '#!/bin/sh\nkill -9 $$\n');
  chmodSync(join(fakes, 'bwrap'), 0o755);
  busyPath = `${fakes}:/usr/bin:/bin`;
});

afterAll(() => {
  process.env.PATH = hostPath;
  resetConfinementProbes();
  rmSync(fakes, { recursive: true, force: true });
});

function busy(): void {
  process.env.PATH = busyPath;
  resetConfinementProbes();
}

function calm(): void {
  process.env.PATH = hostPath;
  resetConfinementProbes();
}

describe('a probe cut short by a busy machine', () => {
  it('does not let a sandboxed server fall back to running unconfined', () => {
    busy();
    try {
      let thrown: unknown;
      try {
        decideConfinement({ serverName: 'files', setting: { root: '/tmp/x', fallback: true }, env: {} });
      } catch (error) {
        thrown = error;
      }
      expect(isMcpActorsError(thrown) && thrown.code).toBe('CONFINEMENT_UNAVAILABLE');
    } finally {
      calm();
    }
  });

  it("fails a sandbox's diff instead of running git outside its box", async () => {
    const project = createGitProject({ 'README.md': '# demo\n' });
    const sandbox = await Sandbox.create({ projectDir: project });
    try {
      busy();
      const error = await sandbox.diff().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(isMcpActorsError(error) && error.code).toBe('SANDBOX_FAILED');
    } finally {
      calm();
      await sandbox.dispose();
      rmSync(project, { recursive: true, force: true });
    }
  });
});
