/**
 * Spawning under file-descriptor pressure, for real (no mocked spawn): a host under
 * `prlimit --nofile=256` runs server A, opens files until EMFILE, then asks for server B. The host
 * must live, A must keep answering, B must report a transient SPAWN_FAILED and be retried, and B
 * must start once the descriptors are free. Before the fix, execa threw "subprocess.stdio is not
 * iterable" and Node's unhandled spawn 'error' killed the whole host.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { record } from './support/record.js';
import { ensureBuilt, runHost } from './support/run-host.js';

const host = fileURLToPath(new URL('./support/emfile-host.mjs', import.meta.url));
const prlimit = ['/usr/bin/prlimit', '/bin/prlimit'].find((path) => existsSync(path));

beforeAll(ensureBuilt);

describe('a spawn that runs out of file descriptors', () => {
  it('fails with a transient SPAWN_FAILED, is retried, and starts once descriptors are free, while the host and its other server live on', async () => {
    expect(prlimit, 'prlimit (util-linux) is needed for this test').toBeDefined();
    const run = await runHost(prlimit!, ['--nofile=256', process.execPath, host], 90_000);
    const step = (name: string) => run.lines.find((line) => line.step === name);
    expect(run.code, run.stderr).toBe(0);
    expect(step('exhausted')).toMatchObject({ code: 'EMFILE' });
    expect(step('starved')).toMatchObject({
      bState: 'STARTING',
      bError: 'SPAWN_FAILED',
      bErrno: 'EMFILE',
      bTransient: true,
      aAnswer: 'during',
    });
    expect(step('starved')?.bRestarts).toBeGreaterThanOrEqual(1);
    expect(step('released')).toMatchObject({ bStart: 'RUNNING' });
    expect(step('b-answered')).toMatchObject({ text: 'after' });
    expect(step('done')).toBeDefined();
    expect(run.stderr).not.toMatch(/Unhandled|is not iterable/);
    record(
      'spawn-emfile',
      `host lived; B: SPAWN_FAILED (EMFILE, transient), ${String(step('starved')?.bRestarts)} retries while starved, RUNNING once freed; A answered throughout`,
    );
  });
});
