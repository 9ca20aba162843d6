/**
 * `storeBlobs` reads each entry through descriptors: what it stores is what the tree holds under
 * its own directories, and an entry that is no longer what the walk saw fails with a code the
 * store counts as a concurrent change. (The race itself: test/confine/snapshot-read-race.race.ts.)
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGit, initRepository } from '../../../src/sandbox/git.js';
import { readLinkBeneath, storeBlobs } from '../../../src/sandbox/tree-blobs.js';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function setup() {
  const base = mkdtempSync(join(tmpdir(), 'tree-blobs-'));
  temps.push(base);
  const [root, store] = [join(base, 'tree'), join(base, 'store')];
  mkdirSync(root);
  mkdirSync(store);
  const location = { gitDir: join(store, 'git'), workTree: root, indexFile: join(store, 'index'), home: store };
  await initRepository(location);
  const git = createGit(location);
  const content = (oid: string) => execFileSync('git', ['--git-dir', location.gitDir, 'cat-file', '-p', oid]);
  return { base, root, store, git, content };
}

const openDescriptors = () => readdirSync('/proc/self/fd').length;

describe('storeBlobs', () => {
  it('stores files with their git mode and symlinks with their exact target, and closes what it opened', async () => {
    const { root, store, git, content } = await setup();
    mkdirSync(join(root, 'src', 'deep'), { recursive: true });
    writeFileSync(join(root, 'src', 'deep', 'a.txt'), 'alpha\n');
    writeFileSync(join(root, 'run.sh'), '#!/bin/sh\n');
    chmodSync(join(root, 'run.sh'), 0o750);
    const target = Buffer.from([0x2e, 0x2e, 0x2f, 0xff, 0x78]); // "../\xffx": not UTF-8
    symlinkSync(target, join(root, 'link'));
    const before = openDescriptors();
    const blobs = await storeBlobs(git, root, ['src/deep/a.txt', 'run.sh', 'link', 'missing', 'nowhere/b'], store);
    expect(openDescriptors()).toBe(before);
    expect(blobs.get('src/deep/a.txt')?.mode).toBe('100644');
    expect(content(blobs.get('src/deep/a.txt')!.oid).toString()).toBe('alpha\n');
    expect(blobs.get('run.sh')?.mode).toBe('100755');
    expect(blobs.get('link')?.mode).toBe('120000');
    expect(content(blobs.get('link')!.oid).equals(target)).toBe(true);
    expect(blobs.has('missing') && blobs.get('missing')).toBe(undefined);
    expect(blobs.has('nowhere/b')).toBe(true);
    expect(readdirSync(store).filter((name) => name.startsWith('links-'))).toEqual([]);
  });

  it('reads a wide tree without holding a descriptor per directory', async () => {
    const { root, store, git, content } = await setup();
    const paths = Array.from({ length: 300 }, (_, i) => `d${i % 150}/sub/f${i}`);
    for (const [i, path] of paths.entries()) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), `file ${i}\n`);
    }
    const before = openDescriptors();
    const blobs = await storeBlobs(git, root, paths, store);
    expect(openDescriptors()).toBe(before);
    expect(paths.map((path) => content(blobs.get(path)!.oid).toString())).toEqual(paths.map((_, i) => `file ${i}\n`));
  });

  it('refuses a path through a directory that is now a symlink, and reads nothing behind it', async () => {
    const { base, root, store, git } = await setup();
    mkdirSync(join(base, 'outside'));
    writeFileSync(join(base, 'outside', 'secret'), 'not yours\n');
    symlinkSync(join(base, 'outside'), join(root, 'd'));
    const before = openDescriptors();
    await expect(storeBlobs(git, root, ['d/secret'], store)).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect(openDescriptors()).toBe(before);
  });

  it('refuses a directory or a FIFO where the walk saw a file, without hanging on the FIFO', async () => {
    const { root, store, git } = await setup();
    mkdirSync(join(root, 'was-a-file'));
    execFileSync('mkfifo', [join(root, 'fifo')]);
    await expect(storeBlobs(git, root, ['was-a-file'], store)).rejects.toMatchObject({ code: 'EISDIR' });
    await expect(storeBlobs(git, root, ['fifo'], store)).rejects.toMatchObject({ code: 'EEXIST' });
  });

  it('reads a link target through its directory, and refuses one behind a swapped directory or a file', async () => {
    const { base, root } = await setup();
    mkdirSync(join(root, 'sub', '.git'), { recursive: true });
    symlinkSync('../elsewhere', join(root, 'sub', '.git', 'link'));
    writeFileSync(join(root, 'sub', 'file'), 'x');
    mkdirSync(join(base, 'outside'));
    symlinkSync('/etc/hostname', join(base, 'outside', 'link'));
    symlinkSync(join(base, 'outside'), join(root, 'swapped'));
    const before = openDescriptors();
    expect(readLinkBeneath(root, 'sub/.git/link')).toBe('../elsewhere');
    expect(() => readLinkBeneath(root, 'swapped/link')).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    expect(() => readLinkBeneath(root, 'sub/file')).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(() => readLinkBeneath(root, 'sub/gone')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    expect(openDescriptors()).toBe(before);
  });
});
