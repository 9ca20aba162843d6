/**
 * A sandbox survives its host: after a host is SIGKILLed in the middle of a rollback,
 * `runtime.sandboxes()` lists the sandbox, `runtime.createSandbox(projectDir, { id })` reopens it
 * with its checkpoints, the interrupted rollback is finished, and `dispose()` still removes it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { SandboxWorkspace } from '../../src/sandbox/sandbox-workspace.js';
import { ensureBuilt, repoRoot } from './support/run-host.js';

const host = fileURLToPath(new URL('./support/sandbox-host.mjs', import.meta.url));
let project: string;
beforeAll(() => {
  ensureBuilt();
  project = mkdtempSync(join(tmpdir(), 'mcp-actors-reopen-project-'));
  writeFileSync(join(project, 'notes.txt'), 'as the host had it\n');
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('a sandbox a crashed host left', () => {
  it('is listed, reopened with its checkpoints, has its interrupted rollback finished, and can be disposed', async () => {
    const id = `reopen-${process.pid}-${Date.now()}`;
    const child = spawn(process.execPath, [host, project, id], {
      cwd: repoRoot,
      env: { ...process.env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
    const crashed = JSON.parse(line) as { root: string; checkpoint: string };
    expect(readFileSync(join(crashed.root, 'notes.txt'), 'utf8')).toContain('changed by the agent');
    child.kill('SIGKILL');
    await exited;

    const runtime = await createRuntime({ config: {} });
    try {
      const left = await runtime.sandboxes();
      expect(left.find((s) => s.id === id)).toMatchObject({ id, root: crashed.root, pid: child.pid });

      const sandbox = await runtime.createSandbox(project, { id });
      expect(sandbox.reopened).toBe(true);
      expect(sandbox.root).toBe(crashed.root);
      const workspace = await SandboxWorkspace.open(sandbox);
      // The rollback to "before" the dead host began is finished by the reopen.
      expect(readFileSync(join(sandbox.root, 'notes.txt'), 'utf8')).toBe('as the host had it\n');
      expect(existsSync(join(sandbox.root, 'extra.txt'))).toBe(false);
      expect(workspace.checkpoints.list().map((c) => c.label)).toEqual(expect.arrayContaining(['before', 'after']));
      await workspace.dispose();
      expect((await runtime.sandboxes()).some((s) => s.id === id)).toBe(false);

      await sandbox.dispose();
      expect(existsSync(crashed.root)).toBe(false);
    } finally {
      await runtime.shutdown();
    }
  });

  it('refuses an id that belongs to another project', async () => {
    const other = mkdtempSync(join(tmpdir(), 'mcp-actors-reopen-other-'));
    const runtime = await createRuntime({ config: {} });
    try {
      const id = `mine-${process.pid}-${Date.now()}`;
      const sandbox = await runtime.createSandbox(project, { id });
      expect(sandbox.reopened).toBe(false);
      await expect(runtime.createSandbox(other, { id })).rejects.toMatchObject({ code: 'SANDBOX_FAILED' });
    } finally {
      await runtime.shutdown();
      rmSync(other, { recursive: true, force: true });
    }
  });
});
