import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isMcpActorsError } from '../../src/errors/mcp-actors-error.js';
import { Sandbox } from '../../src/sandbox/sandbox.js';
import { stringContaining } from '../support/matchers.js';

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Fixture',
  GIT_AUTHOR_EMAIL: 'fixture@example.com',
  GIT_COMMITTER_NAME: 'Fixture',
  GIT_COMMITTER_EMAIL: 'fixture@example.com',
  GIT_OPTIONAL_LOCKS: '0',
};

const dirs: string[] = [];
const sandboxes: Sandbox[] = [];

afterEach(async () => {
  await Promise.all(sandboxes.splice(0).map((sandbox) => sandbox.dispose()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' });
}

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'sandbox-test-')));
  dirs.push(dir);
  return dir;
}

function write(path: string, content: string | Buffer, mode?: number): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  if (mode !== undefined) chmodSync(path, mode);
}

async function create(projectDir: string, includeIgnored = false): Promise<Sandbox> {
  const sandbox = await Sandbox.create({ projectDir, includeIgnored, tempDir: tempDir() });
  sandboxes.push(sandbox);
  return sandbox;
}

const BINARY = Buffer.from([0, 1, 2, 3, 255, 0, 10, 13]);

/**
 * A repository with a commit, then: a staged change (src/a.txt), an unstaged change (src/b.txt),
 * an unstaged deletion (old.txt), an untracked file (notes.txt) and an ignored node_modules/x.
 */
function makeRepo(): string {
  const repo = join(tempDir(), 'repo');
  mkdirSync(repo);
  git(repo, 'init', '--quiet', '-b', 'main');
  write(join(repo, '.gitignore'), 'node_modules/\n');
  write(join(repo, 'README.md'), 'readme\n');
  write(join(repo, 'src/a.txt'), 'a1\n');
  write(join(repo, 'src/b.txt'), 'b1\n');
  write(join(repo, 'old.txt'), 'old\n');
  write(join(repo, 'bin/tool.sh'), '#!/bin/sh\necho tool\n', 0o755);
  write(join(repo, 'logo.bin'), BINARY);
  write(join(repo, 'packages/app/index.js'), 'export {};\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'initial');
  git(repo, 'branch', 'feature');
  write(join(repo, 'src/a.txt'), 'a2 staged\n');
  git(repo, 'add', 'src/a.txt');
  write(join(repo, 'src/b.txt'), 'b2 unstaged\n');
  unlinkSync(join(repo, 'old.txt'));
  write(join(repo, 'notes.txt'), 'untracked\n');
  write(join(repo, 'node_modules/x/index.js'), 'ignored\n');
  return repo;
}

function sha(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Every entry below `root` (minus `exclude` names at the top): type, mode and content hash. */
function treeState(root: string, exclude: readonly string[] = []): Record<string, string> {
  const state: Record<string, string> = {};
  const walk = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (rel === '' && exclude.includes(name)) continue;
      const path = join(dir, name);
      const key = rel === '' ? name : `${rel}/${name}`;
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) state[key] = `link:${readlinkSync(path)}`;
      else if (stats.isDirectory()) {
        state[key] = `dir:${(stats.mode & 0o777).toString(8)}`;
        walk(path, key);
      } else state[key] = `file:${(stats.mode & 0o777).toString(8)}:${sha(readFileSync(path))}`;
    }
  };
  walk(root, '');
  return state;
}

/** What must never change on the host: HEAD, index, branches, stash, all of .git but worktree bookkeeping, the working tree. */
function hostRepoState(repo: string): Record<string, unknown> {
  return {
    head: git(repo, 'rev-parse', 'HEAD'),
    index: sha(readFileSync(join(repo, '.git/index'))),
    branches: git(repo, 'branch', '--list'),
    stash: git(repo, 'stash', 'list'),
    gitDir: treeState(join(repo, '.git'), ['worktrees']),
    workingTree: treeState(repo, ['.git']),
  };
}

function read(path: string): string {
  return readFileSync(path, 'utf8');
}

function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

function headers(diff: string): string[] {
  return diff.split('\n').filter((line) => line.startsWith('diff --git '));
}

function byPath<T extends { path: string }>(items: T[]): T[] {
  return [...items].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function expectConflict(promise: Promise<unknown>, files: string[]): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isMcpActorsError(error) && error.code).toBe('APPLY_CONFLICT');
  if (!isMcpActorsError(error)) return;
  expect([...(error.details.files as string[])].sort()).toEqual(files);
  for (const file of files) expect(error.message).toContain(file);
}

describe('Sandbox of a git repository', () => {
  it('carries committed, staged, unstaged and untracked work but not ignored files, and leaves the host repository untouched', async () => {
    const repo = makeRepo();
    const before = hostRepoState(repo);
    const started = performance.now();
    const sandbox = await create(repo);
    const createMs = performance.now() - started;

    expect(sandbox.kind).toBe('git-worktree');
    expect(sandbox.logicalRoot).toBe(repo);
    expect(read(join(sandbox.root, 'src/a.txt'))).toBe('a2 staged\n');
    expect(read(join(sandbox.root, 'src/b.txt'))).toBe('b2 unstaged\n');
    expect(read(join(sandbox.root, 'notes.txt'))).toBe('untracked\n');
    expect(existsSync(join(sandbox.root, 'old.txt'))).toBe(false);
    expect(existsSync(join(sandbox.root, 'node_modules'))).toBe(false);
    expect(modeOf(join(sandbox.root, 'bin/tool.sh'))).toBe(0o755);
    expect(await sandbox.diff()).toBe('');
    expect(hostRepoState(repo)).toEqual(before);

    write(join(sandbox.root, 'src/a.txt'), 'edited in the sandbox\n');
    expect(await sandbox.changedFiles()).toEqual([{ path: 'src/a.txt', kind: 'modified' }]);
    expect(await sandbox.diff()).toContain('+edited in the sandbox');
    expect(hostRepoState(repo)).toEqual(before);

    const root = sandbox.root;
    await sandbox.dispose();
    await sandbox.dispose();
    expect(existsSync(root)).toBe(false);
    expect(hostRepoState(repo)).toEqual(before);
    expect(readdirSafe(join(repo, '.git/worktrees'))).toEqual([]);
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    console.info(`Sandbox.create (git-worktree, small repo): ${createMs.toFixed(0)} ms`);
  });

  it('carries ignored files with includeIgnored, as context outside the change set', async () => {
    const repo = makeRepo();
    const sandbox = await create(repo, true);
    expect(read(join(sandbox.root, 'node_modules/x/index.js'))).toBe('ignored\n');
    write(join(sandbox.root, 'node_modules/x/index.js'), 'changed\n');
    write(join(sandbox.root, 'node_modules/y.js'), 'new\n');
    expect(await sandbox.changedFiles()).toEqual([]);
    expect(await sandbox.diff()).toBe('');
  });

  it('shows exactly the edits made in the sandbox and applies them home as unstaged changes', async () => {
    const repo = makeRepo();
    const indexBefore = sha(readFileSync(join(repo, '.git/index')));
    const headBefore = git(repo, 'rev-parse', 'HEAD');
    const sandbox = await create(repo);

    write(join(sandbox.root, 'src/b.txt'), 'b3 from the agent\n');
    write(join(sandbox.root, 'src/new.txt'), 'brand new\n');
    unlinkSync(join(sandbox.root, 'notes.txt'));
    chmodSync(join(sandbox.root, 'README.md'), 0o755);
    write(join(sandbox.root, 'logo.bin'), Buffer.concat([BINARY, BINARY]));
    symlinkSync('new.txt', join(sandbox.root, 'src/link'));

    expect(byPath(await sandbox.changedFiles())).toEqual([
      { path: 'README.md', kind: 'modified' },
      { path: 'logo.bin', kind: 'modified' },
      { path: 'notes.txt', kind: 'deleted' },
      { path: 'src/b.txt', kind: 'modified' },
      { path: 'src/link', kind: 'added' },
      { path: 'src/new.txt', kind: 'added' },
    ]);
    const diff = await sandbox.diff();
    expect(headers(diff).sort()).toEqual(
      ['README.md', 'logo.bin', 'notes.txt', 'src/b.txt', 'src/link', 'src/new.txt'].map((p) => `diff --git a/${p} b/${p}`),
    );
    expect(diff).toContain('diff --git a/README.md b/README.md\nold mode 100644\nnew mode 100755\n');
    expect(diff).toContain('Binary files a/logo.bin and b/logo.bin differ');
    expect(diff).toContain('deleted file mode 100644');
    expect(diff).toContain('-b2 unstaged\n+b3 from the agent');
    expect(diff).toContain('new file mode 120000');
    expect(diff).toContain('--- /dev/null\n+++ b/src/new.txt\n@@ -0,0 +1 @@\n+brand new');

    const { applied } = await sandbox.applyToHost();
    expect(applied.sort()).toEqual(['README.md', 'logo.bin', 'notes.txt', 'src/b.txt', 'src/link', 'src/new.txt']);
    expect(read(join(repo, 'src/b.txt'))).toBe('b3 from the agent\n');
    expect(read(join(repo, 'src/new.txt'))).toBe('brand new\n');
    expect(existsSync(join(repo, 'notes.txt'))).toBe(false);
    expect(modeOf(join(repo, 'README.md'))).toBe(0o755);
    expect(readFileSync(join(repo, 'logo.bin'))).toEqual(Buffer.concat([BINARY, BINARY]));
    expect(readlinkSync(join(repo, 'src/link'))).toBe('new.txt');
    expect(read(join(repo, 'src/a.txt'))).toBe('a2 staged\n');
    expect(readdirSync(repo).filter((name) => name.startsWith('.mcp-actors'))).toEqual([]);

    expect(sha(readFileSync(join(repo, '.git/index')))).toBe(indexBefore);
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(headBefore);
    const status = git(repo, 'status', '--porcelain');
    expect(status).toContain(' M README.md');
    expect(status).toContain(' M src/b.txt');
    expect(status).toContain('?? src/new.txt');
    expect(status).toContain('M  src/a.txt'); // still staged, as before

    // The baseline moved to what was applied: nothing left to apply, later edits form the next set.
    expect(await sandbox.diff()).toBe('');
    expect(await sandbox.applyToHost()).toEqual({ applied: [] });
    write(join(sandbox.root, 'src/new.txt'), 'second round\n');
    expect(await sandbox.applyToHost()).toEqual({ applied: ['src/new.txt'] });
    expect(read(join(repo, 'src/new.txt'))).toBe('second round\n');
  });

  it('refuses to apply over files the host changed since the sandbox was made, and writes nothing', async () => {
    const repo = makeRepo();
    const sandbox = await create(repo);
    write(join(sandbox.root, 'src/a.txt'), 'sandbox version\n');
    write(join(sandbox.root, 'src/b.txt'), 'sandbox b\n');
    write(join(sandbox.root, 'fresh.txt'), 'sandbox fresh\n');
    unlinkSync(join(sandbox.root, 'README.md'));

    write(join(repo, 'src/a.txt'), 'host version\n');
    write(join(repo, 'fresh.txt'), 'host also made it\n');
    chmodSync(join(repo, 'README.md'), 0o755);
    const before = hostRepoState(repo);

    await expectConflict(sandbox.applyToHost(), ['README.md', 'fresh.txt', 'src/a.txt']);
    expect(hostRepoState(repo)).toEqual(before); // src/b.txt was not written either
  });

  it('treats a host file that already matches the sandbox as applied, not as a conflict', async () => {
    const repo = makeRepo();
    const sandbox = await create(repo);
    write(join(sandbox.root, 'src/a.txt'), 'same edit\n');
    write(join(repo, 'src/a.txt'), 'same edit\n');
    expect(await sandbox.applyToHost()).toEqual({ applied: [] });
    expect(await sandbox.diff()).toBe('');
  });

  it('sees same-size edits made in the same second as the snapshot, and serialises concurrent calls', async () => {
    const repo = makeRepo();
    const sandbox = await create(repo);
    // Same length, same second: only git's racy-entry handling can tell these apart from the baseline.
    write(join(sandbox.root, 'README.md'), 'README\n');
    write(join(sandbox.root, 'src/a.txt'), 'A2 STAGED\n');
    const [files, diff, again] = await Promise.all([sandbox.changedFiles(), sandbox.diff(), sandbox.changedFiles()]);
    expect(byPath(files)).toEqual([
      { path: 'README.md', kind: 'modified' },
      { path: 'src/a.txt', kind: 'modified' },
    ]);
    expect(again).toEqual(files);
    expect(headers(diff)).toHaveLength(2);
  });

  it('rejects a project directory that does not exist, and any call after dispose', async () => {
    const missing = join(tempDir(), 'nope');
    await expect(Sandbox.create({ projectDir: missing })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const sandbox = await create(makeRepo());
    await sandbox.dispose();
    await expect(sandbox.diff()).rejects.toMatchObject({ code: 'SANDBOX_FAILED' });
  });

  it('takes only absolute paths for denyReads, and says how to make one', async () => {
    const sandbox = await create(makeRepo());
    expect(() => sandbox.denyReads(['secrets'])).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: stringContaining('path.resolve') }),
    );
    sandbox.denyReads(['/nonexistent/secrets']); // a path that does not exist is ignored when git runs
    expect(await sandbox.diff()).toBe('');
  });

  it('prunes the worktree entry a crash left behind when the next sandbox is created', async () => {
    const repo = makeRepo();
    const crashed = await create(repo);
    rmSync(dirname(crashed.root), { recursive: true, force: true }); // the process died: no dispose()
    expect(git(repo, 'worktree', 'list', '--porcelain')).toContain('prunable');

    const next = await create(repo);
    const list = git(repo, 'worktree', 'list', '--porcelain');
    expect(list).not.toContain('prunable');
    expect(list.match(/^worktree /gm)).toHaveLength(2);
    await next.dispose();
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  });

  it('sandboxes the whole repository for a subdirectory project, with root and change set scoped to it', async () => {
    const repo = makeRepo();
    const project = join(repo, 'packages/app');
    const sandbox = await create(project);
    expect(sandbox.kind).toBe('git-worktree');
    expect(sandbox.logicalRoot).toBe(project);
    expect(sandbox.root.endsWith(join('worktree', 'packages', 'app'))).toBe(true);
    expect(read(join(sandbox.root, '../../src/b.txt'))).toBe('b2 unstaged\n'); // the rest of the repo is there

    write(join(sandbox.root, 'index.js'), 'export const x = 1;\n');
    write(join(sandbox.root, 'lib/util.js'), 'util\n');
    write(join(sandbox.root, '../../README.md'), 'outside the project\n');
    expect(byPath(await sandbox.changedFiles())).toEqual([
      { path: 'index.js', kind: 'modified' },
      { path: 'lib/util.js', kind: 'added' },
    ]);
    expect(headers(await sandbox.diff())).toEqual(['diff --git a/index.js b/index.js', 'diff --git a/lib/util.js b/lib/util.js']);

    expect((await sandbox.applyToHost()).applied.sort()).toEqual(['index.js', 'lib/util.js']);
    expect(read(join(project, 'lib/util.js'))).toBe('util\n');
    expect(read(join(repo, 'README.md'))).toBe('readme\n');
    expect(await sandbox.changedFiles()).toEqual([]);
  });

  it('copies a repository without a commit instead of making a worktree', async () => {
    const repo = join(tempDir(), 'fresh');
    mkdirSync(repo);
    git(repo, 'init', '--quiet');
    write(join(repo, 'a.txt'), 'a\n');
    const sandbox = await create(repo);
    expect(sandbox.kind).toBe('copy');
    expect(existsSync(join(sandbox.root, '.git'))).toBe(false);
    expect(read(join(sandbox.root, 'a.txt'))).toBe('a\n');
  });
});

describe('Sandbox of a plain directory', () => {
  function makeProject(): string {
    const project = join(tempDir(), 'plain');
    write(join(project, 'a.txt'), 'a1\n');
    write(join(project, 'secret.txt'), 'private\n', 0o600);
    write(join(project, 'run.sh'), '#!/bin/sh\n', 0o755);
    write(join(project, 'data.bin'), BINARY);
    write(join(project, 'node_modules/dep/index.js'), 'dep\n');
    write(join(project, '.gitignore'), 'a.txt\n'); // not a repository: does not hide anything
    mkdirSync(join(project, 'empty'));
    symlinkSync('a.txt', join(project, 'link'));
    return project;
  }

  it('copies everything but node_modules, keeping modes, symlinks and empty directories', async () => {
    const project = makeProject();
    const sandbox = await create(project);
    expect(sandbox.kind).toBe('copy');
    expect(treeState(sandbox.root)).toEqual(treeState(project, ['node_modules']));
    expect(await sandbox.diff()).toBe('');

    const withIgnored = await create(project, true);
    expect(read(join(withIgnored.root, 'node_modules/dep/index.js'))).toBe('dep\n');
    write(join(withIgnored.root, 'node_modules/dep/index.js'), 'changed\n');
    expect(await withIgnored.changedFiles()).toEqual([]);
  });

  it('shows, applies and guards edits like the worktree kind', async () => {
    const project = makeProject();
    const sandbox = await create(project);
    write(join(sandbox.root, 'a.txt'), 'a2\n');
    write(join(sandbox.root, 'secret.txt'), 'still private\n');
    write(join(sandbox.root, 'deep/new.txt'), 'new\n');
    unlinkSync(join(sandbox.root, 'data.bin'));
    chmodSync(join(sandbox.root, 'run.sh'), 0o644);

    expect(byPath(await sandbox.changedFiles())).toEqual([
      { path: 'a.txt', kind: 'modified' },
      { path: 'data.bin', kind: 'deleted' },
      { path: 'deep/new.txt', kind: 'added' },
      { path: 'run.sh', kind: 'modified' },
      { path: 'secret.txt', kind: 'modified' },
    ]);
    const diff = await sandbox.diff();
    expect(diff).toContain('diff --git a/data.bin b/data.bin\ndeleted file mode 100644');
    expect(diff).toContain('Binary files a/data.bin and /dev/null differ');
    expect(diff).toContain('old mode 100755\nnew mode 100644');

    write(join(project, 'a.txt'), 'host edit\n');
    const before = treeState(project);
    await expectConflict(sandbox.applyToHost(), ['a.txt']);
    expect(treeState(project)).toEqual(before);

    write(join(project, 'a.txt'), 'a1\n'); // the host puts it back: no conflict any more
    expect((await sandbox.applyToHost()).applied.sort()).toEqual(['a.txt', 'data.bin', 'deep/new.txt', 'run.sh', 'secret.txt']);
    expect(read(join(project, 'a.txt'))).toBe('a2\n');
    expect(read(join(project, 'deep/new.txt'))).toBe('new\n');
    expect(existsSync(join(project, 'data.bin'))).toBe(false);
    expect(modeOf(join(project, 'run.sh'))).toBe(0o644);
    expect(modeOf(join(project, 'secret.txt'))).toBe(0o600); // content change keeps the host's permissions
    expect(existsSync(join(project, 'empty'))).toBe(true);
    expect(readdirSync(project).filter((name) => name.startsWith('.mcp-actors'))).toEqual([]);

    const root = sandbox.root;
    await sandbox.dispose();
    expect(existsSync(dirname(root))).toBe(false);
  });
});

function readdirSafe(path: string): string[] {
  return existsSync(path) ? readdirSync(path) : [];
}
