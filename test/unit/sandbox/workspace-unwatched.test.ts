/**
 * A read-only call is judged by the watcher's events only while the watcher sees every directory.
 * When one cannot be watched (the kernel's inotify limit, ENOSPC), a change below it makes no
 * event: the workspace must then look at the tree after every read-only call, not call it clean.
 */
import type * as fs from 'node:fs';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

vi.mock('node:fs', async (importOriginal) => {
  const { overrideFs } = await import('../../support/fs-override.js');
  return overrideFs(await importOriginal<typeof import('node:fs')>(), (real) => ({
    watch: (path: fs.PathLike, ...rest: unknown[]) => {
      if (String(path).endsWith('/unwatchable'))
        throw Object.assign(new Error(`ENOSPC: System limit for number of file watchers reached, watch '${String(path)}'`), {
          code: 'ENOSPC',
        });
      return (real.watch as (...args: unknown[]) => fs.FSWatcher)(path, ...rest);
    },
  }));
});

const { SandboxWorkspace } = await import('../../../src/sandbox/sandbox-workspace.js');

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('a sandbox with a directory the watcher cannot watch', () => {
  it('still catches a read-only call that wrote below it, before and after a clean verdict', async () => {
    const base = mkdtempSync(join(tmpdir(), 'workspace-unwatched-'));
    temps.push(base);
    const [root, project] = [join(base, 'sandbox'), join(base, 'project')];
    mkdirSync(project);
    mkdirSync(join(root, 'unwatchable'), { recursive: true });
    writeFileSync(join(root, 'unwatchable', 'f.txt'), 'before\n');
    const workspace = await SandboxWorkspace.open({ root, logicalRoot: project });
    try {
      // A read-only call that changed nothing: clean.
      workspace.beginRead('c1');
      expect(await workspace.verifyReadOnly('reader', 'c1')).toMatchObject({ ok: true });
      // One that wrote where no event comes from.
      workspace.beginRead('c2');
      writeFileSync(join(root, 'unwatchable', 'f.txt'), 'written by a read-only tool\n');
      const verdict = await workspace.verifyReadOnly('reader', 'c2');
      expect(verdict.ok).toBe(false);
      expect(verdict.changes.map((change) => change.path)).toEqual(['unwatchable/f.txt']);
    } finally {
      await workspace.dispose();
    }
  });
});
