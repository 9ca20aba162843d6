/**
 * A rollback step that meets an entry another process is changing looks again instead of failing.
 * The race is made exact by one `lstat` that answers with what the entry was a moment ago: a
 * symlink, while a directory stands there now (the flipping-directory race of `npm run
 * test:confine` caught it about once in 300 rollbacks, as uid 65534).
 */
import * as fs from 'node:fs';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

/** Paths whose next lstat answers for the symlink beside them, `<path>.was`. */
const stale = vi.hoisted(() => ({ paths: new Set<string>() }));

vi.mock('node:fs', async (importOriginal) => {
  const { overrideFs } = await import('../../support/fs-override.js');
  return overrideFs(await importOriginal<typeof import('node:fs')>(), (real) => ({
    lstatSync: ((path: fs.PathLike, options?: fs.StatSyncOptions) => {
      // What the entry was before another process replaced it: a symlink.
      if (typeof path === 'string' && stale.paths.delete(path)) return real.lstatSync(`${path}.was`);
      return real.lstatSync(path, options);
    }) as typeof real.lstatSync,
  }));
});

const { restoreDirectories } = await import('../../../src/sandbox/tree-manifest.js');

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('restoreDirectories, racing another process', () => {
  it('makes a directory where a symlink was seen and a directory now stands, without failing', () => {
    const root = mkdtempSync(join(tmpdir(), 'mcp-actors-race-'));
    roots.push(root);
    fs.mkdirSync(join(root, 'd'));
    symlinkSync('/nowhere', join(root, 'd.was'));
    stale.paths.add(join(root, 'd'));
    const target = {
      dirs: new Map([
        ['', 0o755],
        ['d', 0o755],
      ]),
      modes: new Map(),
      extras: new Map(),
    };
    expect(() => restoreDirectories(root, new Map(), target)).not.toThrow();
    expect(stale.paths.size).toBe(0);
    expect(fs.lstatSync(join(root, 'd')).isDirectory()).toBe(true);
  });

  it('still replaces a symlink that really stands there', () => {
    const root = mkdtempSync(join(tmpdir(), 'mcp-actors-race-'));
    roots.push(root);
    symlinkSync(tmpdir(), join(root, 'd'));
    const target = {
      dirs: new Map([
        ['', 0o755],
        ['d', 0o755],
      ]),
      modes: new Map(),
      extras: new Map(),
    };
    restoreDirectories(root, new Map(), target);
    expect(fs.lstatSync(join(root, 'd')).isDirectory()).toBe(true);
  });
});
