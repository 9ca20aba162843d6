/**
 * Without /proc (a container that does not mount it), every path read through /proc/self/fd would
 * look gone and a checkpoint would record an empty tree. `storeBlobs` refuses instead, with a code
 * and a message that say what is missing. /proc is taken away by one `openSync` answering ENOENT.
 */
import * as fs from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stringContaining } from '../../support/matchers.js';

vi.mock('node:fs', async (importOriginal) => {
  const { overrideFs } = await import('../../support/fs-override.js');
  return overrideFs(await importOriginal<typeof import('node:fs')>(), (real) => ({
    openSync: (path: fs.PathLike, ...rest: unknown[]) => {
      if (typeof path === 'string' && path.startsWith('/proc/self/fd/')) {
        throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
      }
      return (real.openSync as (...args: unknown[]) => number)(path, ...rest);
    },
  }));
});

const { storeBlobs } = await import('../../../src/sandbox/tree-blobs.js');

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('storeBlobs without /proc', () => {
  it('fails with CHECKPOINT_FAILED naming /proc, and never reports the files as gone', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tree-blobs-no-proc-'));
    temps.push(root);
    writeFileSync(join(root, 'a.txt'), 'a\n');
    const git = vi.fn(() => Promise.resolve(Buffer.from('')));
    await expect(storeBlobs(git, root, ['a.txt'], root)).rejects.toMatchObject({
      code: 'CHECKPOINT_FAILED',
      message: stringContaining('/proc mounted'),
    });
    expect(git).not.toHaveBeenCalled();
  });
});
