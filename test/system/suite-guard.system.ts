/**
 * The suite's process guard (test/support/global-setup.ts), run on a suite of its own: a process a
 * test leaked fails the run and is killed; a process that merely holds a pid the tests once logged
 * (pids are recycled: another run's eslint was killed so) is left alone. Both failed before: the
 * run exited 0 with the leak printed, and the recycled pid was killed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/process/process-table.js';
import { waitUntil } from '../support/wait.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(root, 'test/system/.guard-'));
const stranger = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
stranger.unref();

afterAll(() => {
  try {
    process.kill(stranger.pid!, 'SIGKILL');
  } catch {
    // gone
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('the suite’s process guard', () => {
  it('fails a run that leaves a process behind, kills it, and leaves alone a process that holds a logged pid', async () => {
    // A pid whose process is gone: the group a recycled pid was "logged with".
    const gone = spawnSync('true').pid;
    const leakedFile = join(dir, 'leaked.pid');
    writeFileSync(
      join(dir, 'leak.test.ts'),
      `import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { it } from 'vitest';
it('leaks', () => {
  const leaked = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
  leaked.unref();
  writeFileSync(${JSON.stringify(leakedFile)}, String(leaked.pid));
  appendFileSync(process.env.MCP_ACTORS_PID_LOG!, \`\${leaked.pid} \${leaked.pid}\\n\`);
  appendFileSync(process.env.MCP_ACTORS_PID_LOG!, '${String(stranger.pid)} ${String(gone)}\\n');
});
`,
    );
    writeFileSync(
      join(dir, 'vitest.config.mjs'),
      `export default { test: { root: ${JSON.stringify(root)}, include: [${JSON.stringify(join(dir, '*.test.ts'))}], globalSetup: [${JSON.stringify(join(root, 'test/support/global-setup.ts'))}] } };\n`,
    );
    const run = spawnSync(
      process.execPath,
      [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', join(dir, 'vitest.config.mjs')],
      {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, MCP_ACTORS_PID_LOG: '' },
      },
    );
    const leaked = Number(spawnSync('cat', [leakedFile], { encoding: 'utf8' }).stdout);
    expect(run.status).toBe(1);
    expect(run.stdout + run.stderr).toContain(`still alive after the run (killed now): ${String(leaked)}`);
    await waitUntil(() => !isProcessAlive(leaked), 'the leaked process to be killed');
    expect(isProcessAlive(stranger.pid!)).toBe(true);
  });
});
