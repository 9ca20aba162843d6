import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isMcpActorsError } from '../../src/errors/index.js';
import { gitBlobId } from '../../src/sandbox/change-set.js';
import {
  CheckpointStore,
  RollbackStep,
  planIndexUpdate,
  racyPaths,
  type CheckpointStoreOptions,
} from '../../src/sandbox/checkpoint-store.js';
import type { EntryStat } from '../../src/sandbox/tree-manifest.js';
import { snapshotTree } from '../support/tree-snapshot.js';
import { anyOf, stringContaining, stringMatching } from '../support/matchers.js';

const temps: string[] = [];
const stores: CheckpointStore[] = [];

function tempDir(prefix = 'ckpt-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

async function openStore(root: string, options: Partial<CheckpointStoreOptions> = {}): Promise<CheckpointStore> {
  const store = await CheckpointStore.open({ root, ...options });
  stores.push(store);
  return store;
}

function write(root: string, path: string, content: string | Buffer, mode?: number): void {
  const absolute = join(root, path);
  mkdirSync(join(absolute, '..'), { recursive: true });
  writeFileSync(absolute, content);
  if (mode !== undefined) chmodSync(absolute, mode);
}

/** A small tree with a bit of everything. */
function seed(root: string): void {
  write(root, 'README.md', '# hello\n');
  write(root, 'src/index.ts', 'export const a = 1;\n');
  write(root, 'src/lib/util.ts', 'export const b = 2;\n');
  write(root, 'bin/run.sh', '#!/bin/sh\necho run\n', 0o755);
  write(root, 'secret.key', 'k', 0o600);
  mkdirSync(join(root, 'empty/nested'), { recursive: true });
  symlinkSync('src/index.ts', join(root, 'link-to-index'));
  symlinkSync('../nowhere/at/all', join(root, 'dangling'));
}

afterEach(async () => {
  for (const store of stores.splice(0)) await store.dispose().catch(() => undefined);
  for (const dir of temps.splice(0)) {
    // A test may leave a directory without the owner's permissions.
    try {
      execFileSync('chmod', ['-R', 'u+rwx', dir]);
    } catch {
      // nothing to fix
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('CheckpointStore rollback restores every kind of change', () => {
  const cases: [name: string, mutate: (root: string) => void][] = [
    ['a modified file', (root) => write(root, 'src/index.ts', 'export const a = 42;\n')],
    ['a file modified to the same size', (root) => write(root, 'src/index.ts', 'export const a = 9;\n')],
    ['a created file', (root) => write(root, 'src/new.ts', 'new\n')],
    ['a deleted file', (root) => unlinkSync(join(root, 'src/lib/util.ts'))],
    ['a truncated file', (root) => write(root, 'README.md', '')],
    ['chmod 600', (root) => chmodSync(join(root, 'README.md'), 0o600)],
    ['chmod 640', (root) => chmodSync(join(root, 'README.md'), 0o640)],
    ['chmod 700', (root) => chmodSync(join(root, 'README.md'), 0o700)],
    ['chmod 755 to 644', (root) => chmodSync(join(root, 'bin/run.sh'), 0o644)],
    ['chmod 600 to 755', (root) => chmodSync(join(root, 'secret.key'), 0o755)],
    ['chmod 4755 (setuid)', (root) => chmodSync(join(root, 'bin/run.sh'), 0o4755)],
    ['chmod 444 (read-only)', (root) => chmodSync(join(root, 'README.md'), 0o444)],
    ['a directory chmod 700', (root) => chmodSync(join(root, 'src'), 0o700)],
    ['the root chmod 750', (root) => chmodSync(root, 0o750)],
    ['a new empty directory', (root) => mkdirSync(join(root, 'fresh'))],
    ['new nested directories with files', (root) => write(root, 'a/b/c/d/e.txt', 'deep')],
    ['a removed empty directory', (root) => rmSync(join(root, 'empty'), { recursive: true })],
    ['a removed directory with files', (root) => rmSync(join(root, 'src'), { recursive: true })],
    ['a created symlink', (root) => symlinkSync('README.md', join(root, 'readme-link'))],
    ['a created dangling symlink', (root) => symlinkSync('does/not/exist', join(root, 'ghost'))],
    [
      'a retargeted symlink',
      (root) => {
        unlinkSync(join(root, 'link-to-index'));
        symlinkSync('src/lib/util.ts', join(root, 'link-to-index'));
      },
    ],
    ['a deleted symlink', (root) => unlinkSync(join(root, 'dangling'))],
    [
      'a symlink to a directory replaced by a directory',
      (root) => {
        symlinkSync('src', join(root, 'srclink'));
      },
    ],
    [
      'a file replaced by a directory',
      (root) => {
        unlinkSync(join(root, 'README.md'));
        write(root, 'README.md/inside.txt', 'inside');
      },
    ],
    [
      'a directory replaced by a file',
      (root) => {
        rmSync(join(root, 'src'), { recursive: true });
        write(root, 'src', 'now a file');
      },
    ],
    [
      'a directory replaced by a symlink',
      (root) => {
        rmSync(join(root, 'src'), { recursive: true });
        symlinkSync('/etc', join(root, 'src'));
      },
    ],
    [
      'a file replaced by a symlink',
      (root) => {
        unlinkSync(join(root, 'secret.key'));
        symlinkSync('README.md', join(root, 'secret.key'));
      },
    ],
    [
      'a symlink replaced by a file',
      (root) => {
        unlinkSync(join(root, 'link-to-index'));
        write(root, 'link-to-index', 'plain');
      },
    ],
    [
      'an empty directory replaced by a file',
      (root) => {
        rmSync(join(root, 'empty'), { recursive: true });
        write(root, 'empty', 'file');
      },
    ],
    ['binary content', (root) => write(root, 'src/index.ts', Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7) % 256)))],
    ['a renamed file', (root) => renameSync(join(root, 'src/lib/util.ts'), join(root, 'src/util-moved.ts'))],
    [
      'odd file names',
      (root) => {
        write(root, 'with space.txt', 'a');
        write(root, 'ünïcødé/日本語.txt', 'b');
        write(root, 'new\nline', 'c');
        write(root, 'back\\slash', 'd');
        write(root, '-leading-dash', 'e');
        write(root, 'glob*?[x]', 'f');
        write(root, 'colon:and"quote', 'g');
        write(root, '.gitignore-like', 'h');
      },
    ],
    [
      'a FIFO (not kept by any checkpoint, so removed)',
      (root) => {
        execFileSync('mkfifo', [join(root, 'src/pipe')]);
      },
    ],
    [
      'a nested .git directory (git cannot index it)',
      (root) => {
        write(root, 'vendor/.git/config', '[core]\n');
        write(root, 'vendor/.git/hooks/run', '#!/bin/sh\n', 0o700);
        symlinkSync('config', join(root, 'vendor/.git/link'));
      },
    ],
    [
      'a nested git repository',
      (root) => {
        mkdirSync(join(root, 'nested'));
        execFileSync('git', ['init', '-q', join(root, 'nested')], { env: { PATH: process.env.PATH ?? '', HOME: root } });
        write(root, 'nested/file.txt', 'tracked by the nested repo');
      },
    ],
    [
      'a .GIT file at the top and a .gitmodules symlink',
      (root) => {
        write(root, '.GIT', 'upper-case git');
        symlinkSync('README.md', join(root, 'src/.gitmodules'));
      },
    ],
  ];

  for (const [name, mutate] of cases) {
    it(`restores ${name}`, async () => {
      const root = tempDir();
      seed(root);
      const store = await openStore(root);
      const expected = snapshotTree(root);
      const checkpoint = await store.checkpoint();
      mutate(root);
      expect(snapshotTree(root)).not.toEqual(expected);
      await store.rollback(checkpoint.id);
      expect(snapshotTree(root)).toEqual(expected);
    });

    it(`restores the state after ${name} when rolling forward to it`, async () => {
      const root = tempDir();
      seed(root);
      const store = await openStore(root);
      const before = await store.checkpoint();
      mutate(root);
      const expected = snapshotTree(root, {});
      const after = await store.checkpoint();
      await store.rollback(before.id);
      await store.rollback(after.id);
      // A FIFO is never part of a checkpoint.
      expect(snapshotTree(root)).toEqual(Object.fromEntries(Object.entries(expected).filter(([, e]) => e.type !== 'other')));
    });
  }

  it('restores entries that a previous checkpoint held under a nested .git', async () => {
    const root = tempDir();
    write(root, 'vendor/.git/HEAD', 'ref: refs/heads/main\n');
    write(root, 'vendor/.git/objects/ab/cdef', Buffer.from([0, 1, 2, 255]), 0o444);
    write(root, 'vendor/code.c', 'int main;\n');
    const store = await openStore(root);
    const expected = snapshotTree(root);
    const checkpoint = await store.checkpoint();
    write(root, 'vendor/.git/HEAD', 'ref: refs/heads/other\n');
    rmSync(join(root, 'vendor/.git/objects'), { recursive: true });
    await store.rollback(checkpoint.id);
    expect(snapshotTree(root)).toEqual(expected);
  });
});

describe('CheckpointStore history', () => {
  it('rolls back to any earlier checkpoint, not just the last', async () => {
    const root = tempDir();
    seed(root);
    const store = await openStore(root);
    const states: Record<string, ReturnType<typeof snapshotTree>> = {};
    const one = await store.checkpoint('one');
    states[one.id] = snapshotTree(root);
    write(root, 'src/index.ts', 'two\n');
    chmodSync(join(root, 'secret.key'), 0o640);
    const two = await store.checkpoint('two');
    states[two.id] = snapshotTree(root);
    rmSync(join(root, 'src'), { recursive: true });
    mkdirSync(join(root, 'three/empty'), { recursive: true });
    const three = await store.checkpoint('three');
    states[three.id] = snapshotTree(root);
    write(root, 'four', '4');

    for (const id of [one.id, three.id, two.id, one.id, three.id]) {
      await store.rollback(id);
      expect(snapshotTree(root)).toEqual(states[id]);
    }
  });

  it('lists checkpoints oldest first, with labels, and keeps them across open()', async () => {
    const root = tempDir();
    const storeDir = join(tempDir('ckpt-store-'), 'store');
    write(root, 'a', 'a');
    const store = await CheckpointStore.open({ root, storeDir });
    const first = await store.checkpoint('first');
    const second = await store.checkpoint();
    expect(store.list()).toEqual([first, second]);
    expect(first).toMatchObject({ id: anyOf(String), label: 'first', tree: stringMatching(/^[0-9a-f]{40}$/) });
    expect(second).not.toHaveProperty('label');
    expect(second.createdAt).toBeGreaterThanOrEqual(first.createdAt);

    const again = await openStore(root, { storeDir });
    expect(again.list()).toEqual([first, second]);
    write(root, 'a', 'changed');
    await again.rollback(first.id);
    expect(readFileSync(join(root, 'a'), 'utf8')).toBe('a');
  });

  it('sees deletions made while no store was open', async () => {
    const root = tempDir();
    const storeDir = join(tempDir('ckpt-store-'), 'store');
    seed(root);
    const expected = snapshotTree(root);
    const first = await (await CheckpointStore.open({ root, storeDir })).checkpoint();
    unlinkSync(join(root, 'src/lib/util.ts'));
    write(root, 'src/index.ts', 'edited while closed\n');
    const store = await openStore(root, { storeDir });
    const second = await store.checkpoint();
    const changes = await store.changesBetween(first.id, second.id);
    expect(changes.map((c) => [c.path, c.kind])).toEqual([
      ['src/index.ts', 'modified'],
      ['src/lib/util.ts', 'deleted'],
    ]);
    await store.rollback(first.id);
    expect(snapshotTree(root)).toEqual(expected);
  });

  it('notices a same-size rewrite and a chmod made right after the checkpoint', async () => {
    const root = tempDir();
    const store = await openStore(root);
    for (let i = 0; i < 20; i += 1) {
      write(root, 'f', `v${i % 10}`);
      write(root, 'empty', '');
      chmodSync(join(root, 'empty'), 0o644);
      const checkpoint = await store.checkpoint();
      write(root, 'f', `w${i % 10}`);
      chmodSync(join(root, 'empty'), 0o600);
      const changes = await store.changesSince(checkpoint.id);
      expect(changes.map((c) => c.path)).toEqual(['empty', 'f']);
      await store.rollback(checkpoint.id);
      expect(readFileSync(join(root, 'f'), 'utf8')).toBe(`v${i % 10}`);
      expect(snapshotTree(root).empty).toMatchObject({ mode: '644' });
    }
  });
});

describe('CheckpointStore change sets', () => {
  it('reports kinds, git blob ids and exact modes between two checkpoints', async () => {
    const root = tempDir();
    seed(root);
    const store = await openStore(root);
    const before = await store.checkpoint();
    write(root, 'src/index.ts', 'changed\n');
    write(root, 'added.txt', 'added\n', 0o640);
    unlinkSync(join(root, 'src/lib/util.ts'));
    chmodSync(join(root, 'secret.key'), 0o644);
    unlinkSync(join(root, 'dangling'));
    symlinkSync('elsewhere', join(root, 'dangling'));
    mkdirSync(join(root, 'newdir'));
    chmodSync(join(root, 'empty'), 0o700);
    const after = await store.checkpoint();

    const changes = await store.changesBetween(before.id, after.id);
    expect(changes).toEqual([
      { path: 'added.txt', kind: 'added', type: 'file', after: gitBlobId('added\n'), modeAfter: 0o640 },
      { path: 'dangling', kind: 'modified', type: 'symlink', before: gitBlobId('../nowhere/at/all'), after: gitBlobId('elsewhere') },
      { path: 'empty', kind: 'modified', type: 'directory', modeBefore: 0o755, modeAfter: 0o700 },
      { path: 'newdir', kind: 'added', type: 'directory', modeAfter: 0o755 },
      {
        path: 'secret.key',
        kind: 'modified',
        type: 'file',
        before: gitBlobId('k'),
        after: gitBlobId('k'),
        modeBefore: 0o600,
        modeAfter: 0o644,
      },
      {
        path: 'src/index.ts',
        kind: 'modified',
        type: 'file',
        before: gitBlobId('export const a = 1;\n'),
        after: gitBlobId('changed\n'),
        modeBefore: 0o644,
        modeAfter: 0o644,
      },
      { path: 'src/lib/util.ts', kind: 'deleted', type: 'file', before: gitBlobId('export const b = 2;\n'), modeBefore: 0o644 },
    ]);
    expect(await store.changesBetween(after.id, after.id)).toEqual([]);
    const reverse = await store.changesBetween(after.id, before.id);
    expect(reverse.find((c) => c.path === 'added.txt')).toMatchObject({ kind: 'deleted', before: gitBlobId('added\n') });
  });

  it('agrees with git hash-object on the blob ids it reports', async () => {
    const root = tempDir();
    const store = await openStore(root);
    const before = await store.checkpoint();
    const bytes = Buffer.from([0, 13, 10, 255, 254, 0]);
    write(root, 'bin.dat', bytes);
    const [change] = await store.changesSince(before.id);
    const expected = execFileSync('git', ['hash-object', '--no-filters', join(root, 'bin.dat')], { encoding: 'utf8' }).trim();
    expect(change).toMatchObject({ path: 'bin.dat', kind: 'added', after: expected });
    expect(gitBlobId(bytes)).toBe(expected);
  });

  it('reports mode-only changes, with the unchanged blob, for names git revision syntax might misread', async () => {
    const root = tempDir();
    const names = ['x^{tree}', 'a:b', 'HEAD', '@{-1}', 'new\nline', '-dash', ':top', 'x~1', 'sp ace'];
    for (const name of names) write(root, name, name);
    const store = await openStore(root);
    const before = await store.checkpoint();
    for (const name of names) chmodSync(join(root, name), 0o600);
    const changes = await store.changesSince(before.id);
    const expected = [...names].sort().map((name) => ({
      path: name,
      kind: 'modified',
      type: 'file',
      before: gitBlobId(name),
      after: gitBlobId(name),
      modeBefore: 0o644,
      modeAfter: 0o600,
    }));
    expect(changes).toEqual(expected);
  });

  it('shows a type change at one path as a deletion then an addition', async () => {
    const root = tempDir();
    write(root, 'x', 'file');
    const store = await openStore(root);
    const before = await store.checkpoint();
    unlinkSync(join(root, 'x'));
    write(root, 'x/inner', 'i');
    const changes = await store.changesSince(before.id);
    expect(changes.map((c) => [c.path, c.kind, c.type])).toEqual([
      ['x', 'deleted', 'file'],
      ['x', 'added', 'directory'],
      ['x/inner', 'added', 'file'],
    ]);
  });

  it('takes changesSince from a snapshot it does not record', async () => {
    const root = tempDir();
    seed(root);
    const store = await openStore(root);
    const checkpoint = await store.checkpoint();
    expect(await store.changesSince(checkpoint.id)).toEqual([]);
    write(root, 'README.md', 'x');
    expect((await store.changesSince(checkpoint.id)).map((c) => c.path)).toEqual(['README.md']);
    expect(store.list()).toHaveLength(1);
  });

  it('lists entries git cannot index among the changes', async () => {
    const root = tempDir();
    const store = await openStore(root);
    const before = await store.checkpoint();
    write(root, 'sub/.git/HEAD', 'ref\n', 0o600);
    const changes = await store.changesSince(before.id);
    expect(changes).toEqual([
      { path: 'sub', kind: 'added', type: 'directory', modeAfter: 0o755 },
      { path: 'sub/.git', kind: 'added', type: 'directory', modeAfter: 0o755 },
      { path: 'sub/.git/HEAD', kind: 'added', type: 'file', after: gitBlobId('ref\n'), modeAfter: 0o600 },
    ]);
  });
});

describe('CheckpointStore boundaries', () => {
  it('leaves a .git directory at the top of the root alone', async () => {
    const root = tempDir();
    seed(root);
    write(root, '.git/HEAD', 'ref: refs/heads/main\n');
    const store = await openStore(root);
    const checkpoint = await store.checkpoint();
    write(root, '.git/HEAD', 'ref: refs/heads/feature\n');
    write(root, '.git/new-object', 'x');
    write(root, 'README.md', 'edited');
    expect((await store.changesSince(checkpoint.id)).map((c) => c.path)).toEqual(['README.md']);
    await store.rollback(checkpoint.id);
    expect(readFileSync(join(root, '.git/HEAD'), 'utf8')).toBe('ref: refs/heads/feature\n');
    expect(existsSync(join(root, '.git/new-object'))).toBe(true);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('# hello\n');
  });

  it('leaves a .git file (a worktree link) at the top of the root alone, even one created later', async () => {
    const root = tempDir();
    seed(root);
    const store = await openStore(root);
    const checkpoint = await store.checkpoint();
    write(root, '.git', 'gitdir: /somewhere/.git/worktrees/sandbox\n');
    await store.rollback(checkpoint.id);
    expect(readFileSync(join(root, '.git'), 'utf8')).toBe('gitdir: /somewhere/.git/worktrees/sandbox\n');
    expect(snapshotTree(root, { skipTopGit: true })).not.toHaveProperty('.git');
  });

  it('is not filtered by the tree’s .gitignore or .gitattributes', async () => {
    const root = tempDir();
    write(root, '.gitignore', '*\n!.gitignore\n');
    write(root, '.gitattributes', '* text eol=crlf\n*.txt filter=nope ident\n');
    write(root, 'ignored.txt', 'line one\nline two $Id$\n');
    write(root, 'build/out.log', 'log\n');
    const store = await openStore(root);
    const expected = snapshotTree(root);
    const checkpoint = await store.checkpoint();
    rmSync(join(root, 'ignored.txt'));
    rmSync(join(root, 'build'), { recursive: true });
    const changes = await store.changesSince(checkpoint.id);
    expect(changes.map((c) => c.path)).toEqual(['build', 'build/out.log', 'ignored.txt']);
    await store.rollback(checkpoint.id);
    expect(snapshotTree(root)).toEqual(expected);
  });

  describe('with a hostile git environment', () => {
    const saved = { ...process.env };
    beforeEach(() => {
      const home = tempDir('ckpt-home-');
      writeFileSync(join(home, '.gitconfig'), '[core]\n\tautocrlf = true\n\tfileMode = false\n\tsymlinks = false\n');
      process.env.HOME = home;
      process.env.GIT_DIR = join(home, 'not-a-repo');
      process.env.GIT_INDEX_FILE = join(home, 'index');
      process.env.GIT_CONFIG_GLOBAL = join(home, '.gitconfig');
    });
    afterEach(() => {
      for (const name of ['HOME', 'GIT_DIR', 'GIT_INDEX_FILE', 'GIT_CONFIG_GLOBAL']) {
        if (saved[name] === undefined) Reflect.deleteProperty(process.env, name);
        else process.env[name] = saved[name];
      }
    });

    it('ignores the user’s git config and GIT_* variables', async () => {
      const root = tempDir();
      seed(root);
      write(root, 'crlf.txt', 'a\nb\n');
      const store = await openStore(root);
      const expected = snapshotTree(root);
      const checkpoint = await store.checkpoint();
      rmSync(join(root, 'crlf.txt'));
      chmodSync(join(root, 'bin/run.sh'), 0o644);
      unlinkSync(join(root, 'link-to-index'));
      await store.rollback(checkpoint.id);
      expect(snapshotTree(root)).toEqual(expected);
    });
  });

  it('refuses, with CHECKPOINT_FAILED, a file name that is not valid UTF-8', async () => {
    const root = tempDir();
    write(root, 'fine\uFFFD.txt', 'a replacement character that really is in the name');
    const store = await openStore(root);
    await store.checkpoint();
    writeFileSync(Buffer.concat([Buffer.from(`${root}/bad-`), Buffer.from([0xff, 0xfe])]), 'x');
    await expect(store.checkpoint()).rejects.toMatchObject({
      code: 'CHECKPOINT_FAILED',
      message: stringContaining('not valid UTF-8 (6261642dfffe in hex)'),
    });
  });

  it('rejects an unknown id with CHECKPOINT_NOT_FOUND and says how many checkpoints exist', async () => {
    const root = tempDir();
    const store = await openStore(root);
    await expect(store.rollback('nope')).rejects.toMatchObject({
      code: 'CHECKPOINT_NOT_FOUND',
      message: stringContaining('0 checkpoints'),
    });
    await store.checkpoint();
    await store.checkpoint();
    const error = await store.changesSince('ckpt-99').catch((e: unknown) => e);
    expect(isMcpActorsError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'CHECKPOINT_NOT_FOUND', details: { id: 'ckpt-99', count: 2 } });
    expect((error as Error).message).toMatch(/holds 2 checkpoints: ckpt-1 … ckpt-2/);
    await expect(store.changesBetween('ckpt-1', 'x')).rejects.toMatchObject({ code: 'CHECKPOINT_NOT_FOUND' });
  });

  it('refuses a storeDir inside the root, a root inside the storeDir, and a foreign non-empty directory', async () => {
    const root = tempDir();
    await expect(CheckpointStore.open({ root, storeDir: join(root, 'store') })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(CheckpointStore.open({ root, storeDir: join(root, '..') })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const foreign = tempDir('ckpt-foreign-');
    writeFileSync(join(foreign, 'HEAD'), 'ref: refs/heads/main\n');
    await expect(CheckpointStore.open({ root, storeDir: foreign })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(readdirSync(foreign)).toEqual(['HEAD']);
    const other = tempDir();
    const storeDir = join(tempDir('ckpt-store-'), 's');
    await (await openStore(root, { storeDir })).checkpoint();
    await expect(CheckpointStore.open({ root: other, storeDir })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: stringContaining('holds checkpoints of'),
    });
    await expect(CheckpointStore.open({ root: join(root, 'missing') })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('keeps its store outside the root by default and removes it on dispose()', async () => {
    const root = tempDir();
    seed(root);
    const store = await CheckpointStore.open({ root });
    expect(store.storeDir.startsWith(root)).toBe(false);
    await store.checkpoint();
    expect(existsSync(store.storeDir)).toBe(true);
    await store.dispose();
    expect(existsSync(store.storeDir)).toBe(false);
    await expect(store.checkpoint()).rejects.toMatchObject({ code: 'CHECKPOINT_FAILED', message: stringContaining('disposed') });
  });

  it('serializes concurrent calls', async () => {
    const root = tempDir();
    seed(root);
    const store = await openStore(root);
    const expected = snapshotTree(root);
    const first = await store.checkpoint();
    write(root, 'README.md', 'changed');
    const [, second] = await Promise.all([store.rollback(first.id), store.checkpoint(), store.changesSince(first.id)]);
    expect(snapshotTree(root)).toEqual(expected);
    expect(second.tree).toBe(first.tree);
  });
});

describe('CheckpointStore crash recovery', () => {
  const steps = Object.values(RollbackStep);

  async function interruptedRollback(step: string, scribble?: (root: string) => void) {
    const root = tempDir();
    const storeDir = join(tempDir('ckpt-store-'), 'store');
    seed(root);
    const expected = snapshotTree(root);
    const crash = new Error(`simulated crash after ${step}`);
    const store = await CheckpointStore.open({
      root,
      storeDir,
      onRollbackStep: (finished) => {
        if (finished !== step) return;
        scribble?.(root);
        throw crash;
      },
    });
    const target = await store.checkpoint();
    rmSync(join(root, 'src'), { recursive: true });
    write(root, 'src', 'a file where a directory was');
    write(root, 'new/deep/file', 'new');
    chmodSync(join(root, 'secret.key'), 0o644);
    chmodSync(join(root, 'empty'), 0o700);
    unlinkSync(join(root, 'link-to-index'));
    write(root, 'vendor/.git/config', 'x');
    await store.checkpoint();
    const error = await store.rollback(target.id).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CHECKPOINT_FAILED', cause: crash });
    expect(existsSync(join(storeDir, 'rollback-in-progress'))).toBe(true);
    return { root, storeDir, expected, target };
  }

  for (const step of steps) {
    it(`finishes a rollback interrupted after "${step}" on the next open()`, async () => {
      const { root, storeDir, expected } = await interruptedRollback(step);
      await openStore(root, { storeDir });
      expect(snapshotTree(root)).toEqual(expected);
      expect(existsSync(join(storeDir, 'rollback-in-progress'))).toBe(false);
    });
  }

  it('finishes from an arbitrary half-written state and a stale index.lock', async () => {
    const { root, storeDir, expected } = await interruptedRollback('checkout', (dir) => {
      // What a kill in the middle of git's checkout or of the later steps could leave behind.
      rmSync(join(dir, 'src'), { recursive: true, force: true });
      write(dir, 'src', 'half');
      write(dir, 'README.md', '# hel');
      mkdirSync(join(dir, 'empty/other'), { recursive: true });
      write(dir, 'vendor/.git/config', 'partial');
    });
    writeFileSync(join(storeDir, 'index.lock'), '');
    await openStore(root, { storeDir });
    expect(snapshotTree(root)).toEqual(expected);
  });

  it('finishes the pending rollback before the next checkpoint in the same process', async () => {
    const root = tempDir();
    seed(root);
    const expected = snapshotTree(root);
    let crash = true;
    const store = await openStore(root, {
      onRollbackStep: (step) => {
        if (crash && step === 'checkout') throw new Error('boom');
      },
    });
    const target = await store.checkpoint();
    write(root, 'README.md', 'edited');
    await expect(store.rollback(target.id)).rejects.toMatchObject({ code: 'CHECKPOINT_FAILED' });
    crash = false;
    const next = await store.checkpoint();
    expect(next.tree).toBe(target.tree);
    expect(snapshotTree(root)).toEqual(expected);
    expect(await store.recover()).toBe(false);
  });
});

describe('a rollback while another process changes the tree', () => {
  it('runs again when a step meets a change made under it (EEXIST), and ends with the checkpoint restored', async () => {
    const root = tempDir();
    seed(root);
    const expected = snapshotTree(root);
    const steps: string[] = [];
    let collide = true;
    const store = await openStore(root, {
      onRollbackStep: (step) => {
        steps.push(step);
        if (collide && step === 'checkout') {
          collide = false;
          // What a racer does between a step's look and its mkdir: the directory is back, as a link.
          rmSync(join(root, 'empty'), { recursive: true, force: true });
          symlinkSync(tmpdir(), join(root, 'empty'));
          throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${join(root, 'empty')}'`), { code: 'EEXIST' });
        }
      },
    });
    const target = await store.checkpoint();
    write(root, 'README.md', 'edited');
    await store.rollback(target.id);
    expect(steps.filter((step) => step === 'journal')).toHaveLength(2);
    expect(snapshotTree(root)).toEqual(expected);
    expect(await store.recover()).toBe(false);
  });

  it('puts a link back where a directory now stands (a flipped directory the checkpoint caught as its link)', async () => {
    const root = tempDir();
    seed(root);
    symlinkSync(tmpdir(), join(root, 'flipped'));
    const expected = snapshotTree(root);
    const store = await openStore(root);
    const target = await store.checkpoint();
    rmSync(join(root, 'flipped'));
    mkdirSync(join(root, 'flipped'));
    write(root, 'flipped/inside.txt', 'written through the directory');
    await store.rollback(target.id);
    expect(lstatSync(join(root, 'flipped')).isSymbolicLink()).toBe(true);
    expect(snapshotTree(root)).toEqual(expected);
    expect(await store.recover()).toBe(false);
  });

  it('outlasts a change that goes on: a dozen collisions in a row, then the checkpoint restored', async () => {
    const root = tempDir();
    seed(root);
    const expected = snapshotTree(root);
    let collisions = 0;
    const store = await openStore(root, {
      onRollbackStep: (step) => {
        if (step === 'checkout' && collisions < 12) {
          collisions += 1;
          throw Object.assign(new Error(`EEXIST: file already exists, symlink '${join(root, 'empty')}'`), { code: 'EEXIST' });
        }
      },
    });
    const target = await store.checkpoint();
    write(root, 'README.md', 'edited');
    await store.rollback(target.id);
    expect(collisions).toBe(12);
    expect(snapshotTree(root)).toEqual(expected);
    expect(await store.recover()).toBe(false);
  });

  it('still fails with CHECKPOINT_FAILED (journal kept) when the failure is not a concurrent change', async () => {
    const root = tempDir();
    seed(root);
    let calls = 0;
    const store = await openStore(root, {
      onRollbackStep: (step) => {
        if (step === 'checkout') {
          calls += 1;
          throw new Error('disk on fire');
        }
      },
    });
    const target = await store.checkpoint();
    await expect(store.rollback(target.id)).rejects.toMatchObject({ code: 'CHECKPOINT_FAILED' });
    expect(calls).toBe(1);
  });
});

describe('planIndexUpdate', () => {
  const file = (over: Partial<EntryStat> = {}): EntryStat => ({
    type: 'file',
    perm: 0o644,
    size: 1,
    mtimeMs: 10,
    ctimeMs: 10,
    ino: 1,
    ...over,
  });
  const dir: EntryStat = { type: 'dir', perm: 0o755, size: 0, mtimeMs: 10, ctimeMs: 10, ino: 9 };

  it('hands git only new, changed and racy paths, and removes vanished or replaced ones', () => {
    const previous = new Map<string, EntryStat>([
      ['', dir],
      ['same', file()],
      ['edited', file()],
      ['racy', file()],
      ['gone', file()],
      ['now-dir', file()],
      ['now-dir-child', file()],
      ['link', file({ type: 'symlink' })],
      ['sub/.git/HEAD', file()],
      ['sub/.git/config', file()],
    ]);
    const now = new Map<string, EntryStat>([
      ['', dir],
      ['same', file()],
      ['edited', file({ ctimeMs: 11 })],
      ['racy', file()],
      ['now-dir', dir],
      ['now-dir-child', file()],
      ['link', file({ type: 'symlink', ino: 2 })],
      ['fresh', file()],
      ['sub/.git/HEAD', file()],
      ['sub/.git/config', file({ size: 2 })],
      ['.gitmodules', file({ type: 'symlink' })],
    ]);
    const plan = planIndexUpdate(
      {
        walk: previous,
        racy: new Set(['racy']),
        extraBlobs: new Map([
          ['sub/.git/HEAD', 'b1'],
          ['sub/.git/config', 'b2'],
        ]),
      },
      now,
    );
    expect(plan.changed.sort()).toEqual(['edited', 'fresh', 'link', 'racy']);
    expect(plan.removed.sort()).toEqual(['gone', 'now-dir']);
    expect(plan.extrasToHash).toEqual(['sub/.git/config']);
    expect([...plan.extraBlobs]).toEqual([['sub/.git/HEAD', 'b1']]);
  });

  it('marks files stamped in the tick of the walk or later as racy', () => {
    const walk = new Map<string, EntryStat>([
      ['old', file({ mtimeMs: 5, ctimeMs: 5 })],
      ['same-tick', file({ mtimeMs: 5, ctimeMs: 10 })],
      ['later', file({ mtimeMs: 12, ctimeMs: 12 })],
      ['dir', { ...dir, ctimeMs: 20 }],
    ]);
    expect([...racyPaths(walk, 10)].sort()).toEqual(['later', 'same-tick']);
  });
});

describe('CheckpointStore with changed paths (hints)', () => {
  /** Two identical trees: one store is told what changed, the other walks everything. */
  async function twins(): Promise<{ roots: [string, string]; hinted: CheckpointStore; full: CheckpointStore; walks: string[] }> {
    const roots: [string, string] = [tempDir(), tempDir()];
    for (const root of roots) seed(root);
    const walks: string[] = [];
    const hinted = await openStore(roots[0], { onSnapshot: (info) => walks.push(info.walk) });
    const full = await openStore(roots[1]);
    await hinted.checkpoint();
    await full.checkpoint();
    return { roots, hinted, full, walks };
  }

  function manifestOf(store: CheckpointStore, id: string): string {
    const file = JSON.parse(readFileSync(join(store.storeDir, 'checkpoints.json'), 'utf8')) as {
      checkpoints: { id: string; manifest: string }[];
    };
    const manifest = file.checkpoints.find((c) => c.id === id)?.manifest ?? '';
    return readFileSync(join(store.storeDir, 'manifests', `${manifest}.json`), 'utf8');
  }

  const cases: [name: string, hints: string[], mutate: (root: string) => void][] = [
    ['a modified file', ['src/index.ts'], (root) => write(root, 'src/index.ts', 'export const a = 42;\n')],
    ['a created file', ['src/new.ts'], (root) => write(root, 'src/new.ts', 'new\n')],
    ['a deleted file', ['src/lib/util.ts'], (root) => unlinkSync(join(root, 'src/lib/util.ts'))],
    ['a chmod of a file', ['secret.key'], (root) => chmodSync(join(root, 'secret.key'), 0o644)],
    ['a chmod of a directory', ['src/lib'], (root) => chmodSync(join(root, 'src/lib'), 0o700)],
    ['a chmod of the root', [''], (root) => chmodSync(root, 0o750)],
    ['a new empty directory', ['fresh'], (root) => mkdirSync(join(root, 'fresh'))],
    ['new nested directories with a file (only the top one named)', ['a'], (root) => write(root, 'a/b/c/d.txt', 'deep')],
    ['a removed empty directory', ['empty/nested'], (root) => rmSync(join(root, 'empty/nested'), { recursive: true })],
    ['a removed directory with files (only the directory named)', ['src'], (root) => rmSync(join(root, 'src'), { recursive: true })],
    ['a renamed directory', ['src', 'moved'], (root) => renameSync(join(root, 'src'), join(root, 'moved'))],
    ['a created symlink', ['readme-link'], (root) => symlinkSync('README.md', join(root, 'readme-link'))],
    [
      'a retargeted symlink',
      ['link-to-index'],
      (root) => {
        unlinkSync(join(root, 'link-to-index'));
        symlinkSync('src/lib/util.ts', join(root, 'link-to-index'));
      },
    ],
    [
      'a file replaced by a directory',
      ['README.md'],
      (root) => {
        unlinkSync(join(root, 'README.md'));
        write(root, 'README.md/inside.txt', 'inside');
      },
    ],
    [
      'a directory replaced by a file',
      ['src'],
      (root) => {
        rmSync(join(root, 'src'), { recursive: true });
        write(root, 'src', 'now a file');
      },
    ],
    [
      'a directory replaced by a symlink',
      ['src'],
      (root) => {
        rmSync(join(root, 'src'), { recursive: true });
        symlinkSync('bin', join(root, 'src'));
      },
    ],
    [
      'entries git cannot index',
      ['vendor/.git/config', 'vendor/.git/link'],
      (root) => {
        write(root, 'vendor/.git/config', '[core]\n', 0o600);
        symlinkSync('config', join(root, 'vendor/.git/link'));
      },
    ],
    [
      'a hint below a file that is now a directory',
      ['README.md/inside.txt'],
      (root) => {
        unlinkSync(join(root, 'README.md'));
        write(root, 'README.md/inside.txt', 'inside');
      },
    ],
    [
      'hints with ./ and trailing slashes, and one for a path that never existed',
      ['./src//index.ts', 'nowhere/at/all', 'src/'],
      (root) => write(root, 'src/index.ts', 'x'),
    ],
  ];

  for (const [name, hints, mutate] of cases) {
    it(`gives the same tree and manifest as a full walk after ${name}, and rolls back and forward exactly`, async () => {
      const { roots, hinted, full, walks } = await twins();
      for (const root of roots) mutate(root);
      const expected = snapshotTree(roots[0]);
      const [a, b] = [await hinted.checkpoint('after', { changedPaths: hints }), await full.checkpoint('after')];
      expect(walks).toEqual(['full', 'partial']);
      expect(a.tree).toBe(b.tree);
      expect(manifestOf(hinted, a.id)).toBe(manifestOf(full, b.id));
      expect(await hinted.changesBetween('ckpt-1', a.id)).toEqual(await full.changesBetween('ckpt-1', b.id));
      await hinted.rollback('ckpt-1');
      await hinted.rollback(a.id);
      expect(snapshotTree(roots[0])).toEqual(expected);
    });

    it(`reports the same changesSince with hints as without after ${name}`, async () => {
      const { roots, hinted, full } = await twins();
      for (const root of roots) mutate(root);
      expect(await hinted.changesSince('ckpt-1', { changedPaths: hints })).toEqual(await full.changesSince('ckpt-1'));
      // The snapshot of changesSince counts: nothing changed since it, so no hints are needed.
      expect(await hinted.changesSince('ckpt-1', { changedPaths: [] })).toEqual(await full.changesSince('ckpt-1'));
    });
  }

  it('rechecks a file rewritten to the same size right after the checkpoint, when named', async () => {
    const root = tempDir();
    const store = await openStore(root);
    for (let i = 0; i < 10; i += 1) {
      write(root, 'f', `v${i % 10}`);
      const checkpoint = await store.checkpoint(undefined, { changedPaths: ['f'] });
      write(root, 'f', `w${i % 10}`);
      expect((await store.changesSince(checkpoint.id, { changedPaths: ['f'] })).map((c) => c.path)).toEqual(['f']);
    }
  });

  it('trusts the hints: a change they do not name is not seen until a full walk (callers must name every change)', async () => {
    const root = tempDir();
    seed(root);
    const store = await openStore(root);
    const first = await store.checkpoint();
    write(root, 'README.md', 'unnamed change');
    expect(await store.changesSince(first.id, { changedPaths: [] })).toEqual([]);
    expect((await store.changesSince(first.id)).map((c) => c.path)).toEqual(['README.md']);
  });

  describe('falls back to a full walk', () => {
    async function walkKind(prepare: (store: CheckpointStore, root: string) => Promise<void>, hints: Iterable<string>): Promise<string[]> {
      const root = tempDir();
      seed(root);
      const walks: string[] = [];
      const store = await openStore(root, { onSnapshot: (info) => walks.push(info.walk) });
      await prepare(store, root);
      write(root, 'README.md', 'changed');
      walks.length = 0;
      const after = await store.checkpoint(undefined, { changedPaths: hints });
      // A full walk finds nothing the hinted checkpoint missed.
      expect(await store.changesSince(after.id)).toEqual([]);
      return walks.slice(0, 1);
    }
    const once = async (store: CheckpointStore): Promise<void> => {
      await store.checkpoint();
    };

    it('uses the hints after a first full snapshot (the control case)', async () => {
      expect(await walkKind(once, ['README.md'])).toEqual(['partial']);
    });
    it('on the first snapshot of a store', async () => {
      expect(await walkKind(() => Promise.resolve(), ['README.md'])).toEqual(['full']);
    });
    it('on the first snapshot after reopening a store', async () => {
      const root = tempDir();
      const storeDir = join(tempDir('ckpt-store-'), 'store');
      seed(root);
      await (await CheckpointStore.open({ root, storeDir })).checkpoint();
      const walks: string[] = [];
      const store = await openStore(root, { storeDir, onSnapshot: (info) => walks.push(info.walk) });
      await store.checkpoint(undefined, { changedPaths: [] });
      expect(walks).toEqual(['full']);
    });
    it('for a path that escapes the root', async () => {
      expect(await walkKind(once, ['README.md', '../outside'])).toEqual(['full']);
      expect(await walkKind(once, ['README.md', 'src/../../outside'])).toEqual(['full']);
    });
    it('for an absolute path', async () => {
      expect(await walkKind(once, ['README.md', '/etc/passwd'])).toEqual(['full']);
    });
    it('for a name that was not valid UTF-8', async () => {
      expect(await walkKind(once, ['README.md', 'bad-\uFFFD'])).toEqual(['full']);
    });
    it('for more than 4,096 paths', async () => {
      const many = Array.from({ length: 4_097 }, (_, i) => `p${i}`);
      expect(await walkKind(once, ['README.md', ...many])).toEqual(['full']);
    });
    it('for the first snapshot after a rollback', async () => {
      expect(
        await walkKind(
          async (store, root) => {
            const checkpoint = await store.checkpoint();
            write(root, 'src/index.ts', 'to be rolled back');
            await store.rollback(checkpoint.id);
          },
          ['README.md'],
        ),
      ).toEqual(['full']);
    });
    it('for the first snapshot after one that failed', async () => {
      expect(
        await walkKind(
          async (store, root) => {
            await store.checkpoint();
            const bad = Buffer.concat([Buffer.from(`${root}/bad-`), Buffer.from([0xff])]);
            writeFileSync(bad, 'x');
            await expect(store.checkpoint(undefined, { changedPaths: [''] })).rejects.toMatchObject({ code: 'CHECKPOINT_FAILED' });
            unlinkSync(bad);
          },
          ['README.md'],
        ),
      ).toEqual(['full']);
    });
  });
});

describe('CheckpointStore touches only what changed', () => {
  it('a rollback rewrites the changed file and leaves every other file as it is (inode and mtime)', async () => {
    const root = tempDir();
    for (let i = 0; i < 40; i += 1) write(root, `dir${i % 4}/file${i}.txt`, `content ${i}\n`);
    const store = await openStore(root);
    const first = await store.checkpoint('first');
    write(root, 'dir1/file1.txt', 'changed\n');
    await store.checkpoint('second');
    const before = new Map(readdirSync(join(root, 'dir2')).map((name) => [name, lstatSync(join(root, 'dir2', name))]));
    write(root, 'dir1/file1.txt', 'changed again\n');
    await store.rollback(first.id);
    expect(readFileSync(join(root, 'dir1/file1.txt'), 'utf8')).toBe('content 1\n');
    for (const [name, stats] of before) {
      const now = lstatSync(join(root, 'dir2', name));
      expect([name, now.ino, now.mtimeMs]).toEqual([name, stats.ino, stats.mtimeMs]);
    }
  });

  it('after reopening, the first checkpoint sees what changed while the store was closed, and only that', async () => {
    const root = tempDir();
    for (let i = 0; i < 40; i += 1) write(root, `dir${i % 4}/file${i}.txt`, `content ${i}\n`);
    const storeDir = join(tempDir('ckpt-store-'), 'store');
    const store = await CheckpointStore.open({ root, storeDir });
    const first = await store.checkpoint('first');
    write(root, 'dir3/file3.txt', 'edited while closed\n');
    rmSync(join(root, 'dir0/file0.txt'));
    write(root, 'dir0/new.txt', 'new\n');
    const again = await openStore(root, { storeDir });
    const second = await again.checkpoint('second');
    const changes = await again.changesSince(first.id);
    expect(again.list().map((checkpoint) => checkpoint.id)).toEqual([first.id, second.id]);
    expect(changes.map((change) => `${change.kind} ${change.path}`).sort()).toEqual([
      'added dir0/new.txt',
      'deleted dir0/file0.txt',
      'modified dir3/file3.txt',
    ]);
  });
});
