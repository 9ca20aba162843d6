/**
 * Teardown that does not wait on the disk: `dispose()` renames the sandbox aside, drops the
 * worktree's bookkeeping, and removes the files in the background; if the host dies first — even by
 * SIGKILL — the reaper finishes the removal. (How fast it returns is measured in
 * `bench/sandbox-scale.mjs`, not here.)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Sandbox } from '../../src/sandbox/sandbox.js';
import { pendingRemovals } from '../../src/process/process-groups.js';
import { createGitProject, git } from '../support/git-project.js';
import { waitUntil } from '../support/wait.js';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('sandbox teardown', () => {
  it('dispose() leaves no sandbox directory, no trash and no worktree entry behind', async () => {
    const project = createGitProject({ 'README.md': '# demo\n', 'src/a.ts': 'export {}\n' });
    temps.push(project);
    const base = mkdtempSync(join(tmpdir(), 'mcp-actors-teardown-'));
    temps.push(base);
    const sandbox = await Sandbox.create({ projectDir: project, tempDir: base });
    expect(git(project, 'worktree', 'list', '--porcelain')).toContain(sandbox.root);
    await sandbox.dispose();
    expect(git(project, 'worktree', 'list', '--porcelain')).not.toContain(sandbox.root);
    await waitUntil(() => pendingRemovals().size === 0 && readdirSync(base).length === 0, 'the background removal', 30_000);
    expect(readdirSync(base)).toEqual([]);
  });

  it('a removal the host could not finish (SIGKILL) is finished by the reaper', async () => {
    const base = mkdtempSync(join(tmpdir(), 'mcp-actors-teardown-'));
    temps.push(base);
    const trash = join(base, 'mcp-actors-trash-big');
    for (let d = 0; d < 40; d += 1) {
      mkdirSync(join(trash, `d${d}`), { recursive: true });
      for (let f = 0; f < 50; f += 1) writeFileSync(join(trash, `d${d}`, `f${f}`), 'x');
    }
    // The built module (`npm test` builds first): a plain Node process cannot load TypeScript.
    const groups = fileURLToPath(new URL('../../dist/process/process-groups.js', import.meta.url));
    // The host starts the removal and is killed in the same tick: the removal has barely begun.
    const host = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      const { removeInBackground } = await import(${JSON.stringify(groups)});
      void removeInBackground(${JSON.stringify(trash)});
      process.kill(process.pid, 'SIGKILL');
    `,
      ],
      { stdio: 'ignore' },
    );
    await new Promise((resolve) => host.once('exit', resolve));
    await waitUntil(() => !existsSync(trash), 'the reaper to remove the trash', 30_000);
    expect(existsSync(trash)).toBe(false);
  });
});
