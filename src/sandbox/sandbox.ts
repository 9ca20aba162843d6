/**
 * A filesystem sandbox of a host project. Agents work in `root`; nothing reaches the project until
 * `applyToHost()`, which refuses (and writes nothing) when the host changed the same files meanwhile.
 *
 * Two kinds, chosen by the project:
 * - `git-worktree`: a detached `git worktree` of the repository's HEAD plus the host's uncommitted
 *   work (staged, unstaged, untracked; ignored files only with `includeIgnored`). For a project
 *   directory below the repository's top level the whole repository is sandboxed, `root` is the
 *   matching subdirectory, and the change set is limited to (and relative to) that subdirectory.
 * - `copy`: a plain copy, for directories outside any repository, repositories without a commit,
 *   and directories the enclosing repository ignores. `.git` entries are never copied and
 *   `node_modules` directories are left out unless `includeIgnored`.
 *
 * The baseline (what the sandbox started from) is a git tree in a private object store under the
 * sandbox's temp dir, never in the host's `.git`: diffs then cost one `git add -A` (stat-cached)
 * and a `diff-tree`, and no second copy of the project is kept. The change set is what git sees:
 * contents, the executable bit and symlinks; ignored files (and `node_modules` in a copy) are
 * context for the tools, never part of it; other permission bits and empty directories are not
 * tracked. Host branches, index, HEAD and working tree are only ever read; `applyToHost()` writes
 * plain files, so applied changes show up on the host as unstaged changes.
 */
import { constants, type Stats } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, mkdtemp, readdir, readlink, realpath, rename, rm, stat, symlink, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, isMcpActorsError, messageOf } from '../errors/mcp-actors-error.js';
import { copyEntry, copyTree, isStrictlyInside, limiter, lstatOrUndefined, removeEntry, type SkipEntry } from './copy-tree.js';
import { runGit, splitNul } from './sandbox-git.js';
import { ABSENT_MODE, treeChanges, unifiedDiff, type TreeChange, type TreeStore } from './unified-diff.js';

export interface SandboxOptions {
  /** The host project (the logical root). */
  readonly projectDir: string;
  /** Carry files git ignores (`node_modules`, `dist`, …; in a copy: `node_modules`). Default false. */
  readonly includeIgnored?: boolean;
  /** Parent directory for the sandbox. Default `os.tmpdir()`. */
  readonly tempDir?: string;
}

export type SandboxKind = 'git-worktree' | 'copy';

export interface ChangedFile {
  /** Relative to the project directory, `/`-separated. */
  readonly path: string;
  readonly kind: 'added' | 'modified' | 'deleted';
}

export interface ApplyResult {
  /** Paths written or deleted on the host (relative to the project directory). */
  readonly applied: string[];
}

interface Layout {
  readonly kind: SandboxKind;
  readonly logicalRoot: string;
  readonly root: string;
  readonly tempDir: string;
  /** Repository top of the host (git kind), or the project directory (copy kind). */
  readonly hostTop: string;
  /** The linked worktree, git kind only. */
  readonly worktree?: string;
  /** The project directory relative to `hostTop`, with a trailing `/`, or `''`. */
  readonly prefix: string;
  /** Runs git on the sandbox with the private index and object store. */
  readonly store: TreeStore;
  /** Runs `git hash-object` on host files with the same attributes and filters as the sandbox. */
  readonly hostHash: TreeStore;
  readonly addArgs: readonly string[];
}

/** What a host path holds now: git mode and blob id, absent, or something a file cannot replace. */
type HostState = { readonly mode: string; readonly oid: string } | 'blocked';

const SYMLINK_MODE = '120000';
const carry = limiter(8);

/**
 * A sandbox of a project directory.
 *
 * @example
 * await using sandbox = await Sandbox.create({ projectDir: process.cwd() });
 * await writeFile(join(sandbox.root, 'notes.md'), 'hello\n');
 * console.log(await sandbox.diff());
 * await sandbox.applyToHost();
 */
export class Sandbox implements AsyncDisposable {
  readonly logicalRoot: string;
  readonly root: string;
  readonly kind: SandboxKind;
  readonly #layout: Layout;
  #baseline: string;
  #tail: Promise<unknown> = Promise.resolve();
  #disposed: Promise<void> | undefined;

  private constructor(layout: Layout, baseline: string) {
    this.#layout = layout;
    this.#baseline = baseline;
    this.logicalRoot = layout.logicalRoot;
    this.root = layout.root;
    this.kind = layout.kind;
  }

  /** Makes the sandbox; prunes worktree bookkeeping a crashed process left behind first. */
  static async create(options: SandboxOptions): Promise<Sandbox> {
    const logicalRoot = await projectDirectory(options.projectDir);
    const includeIgnored = options.includeIgnored ?? false;
    const repository = await probeRepository(logicalRoot);
    const tempDir = await mkdtemp(join(await realpath(options.tempDir ?? tmpdir()), 'mcp-actors-sandbox-')).catch((error: unknown) => {
      throw new McpActorsError(ErrorCode.SANDBOX_FAILED, `cannot make a sandbox directory in ${options.tempDir ?? tmpdir()}: ${messageOf(error)}`, {
        cause: error,
      });
    });
    try {
      const layout = repository
        ? await createWorktree(logicalRoot, repository, tempDir, includeIgnored)
        : await createCopy(logicalRoot, tempDir, includeIgnored);
      return new Sandbox(layout, await snapshot(layout));
    } catch (error) {
      await rm(tempDir, { recursive: true, force: true });
      // Best effort: the error being thrown is the one worth reporting; create() prunes next time anyway.
      if (repository) await runGit(['worktree', 'prune'], { cwd: repository.top }).catch(() => undefined);
      if (isMcpActorsError(error)) throw error;
      throw new McpActorsError(ErrorCode.SANDBOX_FAILED, `could not create a sandbox of ${logicalRoot}: ${messageOf(error)}`, { cause: error });
    }
  }

  /**
   * Removes worktree bookkeeping whose directory is gone (`git worktree prune`), e.g. after a crash
   * skipped `dispose()`. Only entries whose directory no longer exists are touched; locked
   * worktrees are kept. Does nothing outside a repository.
   */
  static async pruneStale(projectDir: string): Promise<void> {
    const result = await runGit(['rev-parse', '--show-toplevel'], { cwd: projectDir, okExitCodes: [128] });
    if (result.exitCode !== 0) return;
    await runGit(['worktree', 'prune'], { cwd: result.stdout.trim() });
  }

  /** The change set since creation (or the last `applyToHost()`) as a unified diff. */
  diff(): Promise<string> {
    return this.#serial(async () => {
      const { store, prefix } = this.#layout;
      return unifiedDiff(store, this.#baseline, await snapshot(this.#layout), prefix);
    });
  }

  changedFiles(): Promise<ChangedFile[]> {
    return this.#serial(async () => (await this.#changes()).map(({ path, kind }) => ({ path, kind })));
  }

  /**
   * Writes the change set into the project directory. Every changed path is checked first: if the
   * host changed it since the sandbox was made, throws APPLY_CONFLICT naming those files and writes
   * nothing. Files already identical on the host are left alone. Afterwards the baseline moves to
   * what was applied, so a second call is a no-op and later edits form the next change set.
   * Call it while nothing is writing to the sandbox.
   */
  applyToHost(): Promise<ApplyResult> {
    return this.#serial(async () => {
      const changes = await this.#changes();
      if (changes.length === 0) return { applied: [] };
      const states = await this.#hostStates(changes);
      const pending: TreeChange[] = [];
      const conflicts: string[] = [];
      for (const change of changes) {
        const state = states.get(change.path) ?? 'blocked';
        if (matches(state, change.oldMode, change.oldOid)) pending.push(change);
        else if (!matches(state, change.newMode, change.newOid)) conflicts.push(change.path);
      }
      if (conflicts.length > 0) {
        throw new McpActorsError(
          ErrorCode.APPLY_CONFLICT,
          `cannot apply the sandbox to ${this.logicalRoot}: ${conflicts.length} file(s) changed on the host since the sandbox was made: ` +
            `${conflicts.join(', ')}. Nothing was written; merge these by hand (see diff()) or make a new sandbox.`,
          { details: { files: conflicts } },
        );
      }
      await this.#write(pending);
      this.#baseline = await this.#advanceBaseline(changes);
      return { applied: pending.map((change) => change.path) };
    });
  }

  /** Removes the sandbox directory and its worktree bookkeeping. Safe to call more than once. */
  dispose(): Promise<void> {
    this.#disposed ??= this.#serial(() => this.#teardown(), true);
    return this.#disposed;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  /** Runs operations one at a time: they share the private index. */
  #serial<T>(task: () => Promise<T>, disposing = false): Promise<T> {
    if (this.#disposed && !disposing) {
      return Promise.reject(new McpActorsError(ErrorCode.SANDBOX_FAILED, `the sandbox of ${this.logicalRoot} has been disposed; create a new one`));
    }
    const run = this.#tail.then(task, task);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  async #changes(): Promise<TreeChange[]> {
    const { store, prefix } = this.#layout;
    return treeChanges(store, this.#baseline, await snapshot(this.#layout), prefix);
  }

  async #hostStates(changes: readonly TreeChange[]): Promise<Map<string, HostState>> {
    const root = this.logicalRoot;
    const deleted = new Set(changes.filter((c) => c.newMode === ABSENT_MODE).map((c) => c.path));
    const parents = new Map<string, Promise<Stats | undefined>>();
    const parentStat = (rel: string): Promise<Stats | undefined> => {
      let known = parents.get(rel);
      if (!known) parents.set(rel, (known = lstatOrUndefined(join(root, rel))));
      return known;
    };
    const states = new Map<string, HostState>();
    const files: string[] = [];
    for (const { path } of changes) {
      const blocker = await blockingParent(path, parentStat);
      if (blocker === 'missing' || (blocker !== undefined && deleted.has(blocker))) {
        states.set(path, { mode: ABSENT_MODE, oid: '' });
        continue;
      }
      const stats = blocker === undefined ? await lstatOrUndefined(join(root, path)) : undefined;
      if (blocker !== undefined || (stats && !stats.isFile() && !stats.isSymbolicLink())) states.set(path, 'blocked');
      else if (!stats) states.set(path, { mode: ABSENT_MODE, oid: '' });
      else if (stats.isSymbolicLink()) {
        const target = await readlink(join(root, path));
        const oid = (await runGit(['hash-object', '--stdin'], { ...this.#layout.hostHash, input: target })).stdout.trim();
        states.set(path, { mode: SYMLINK_MODE, oid });
      } else {
        states.set(path, { mode: stats.mode & 0o100 ? '100755' : '100644', oid: '' });
        files.push(path);
      }
    }
    // hash-object applies the same clean filters (eol, LFS) that `git add` applied to the baseline.
    for (let i = 0; i < files.length; i += 500) {
      const chunk = files.slice(i, i + 500);
      const oids = (await runGit(['hash-object', '--', ...chunk], this.#layout.hostHash)).stdout.split('\n');
      chunk.forEach((path, j) => {
        const state = states.get(path);
        if (state && state !== 'blocked') states.set(path, { mode: state.mode, oid: oids[j] ?? '' });
      });
    }
    return states;
  }

  /** Stages every new file beside the project first, so a failure before the renames changes nothing. */
  async #write(pending: readonly TreeChange[]): Promise<void> {
    const host = this.logicalRoot;
    const writes = pending.filter((c) => c.newMode !== ABSENT_MODE);
    const staging = await mkdtemp(join(host, '.mcp-actors-apply-'));
    try {
      const staged = await Promise.all(
        writes.map((change, i) => carry(() => this.#stage(change, join(staging, String(i))))),
      );
      for (const change of pending) {
        if (change.newMode === ABSENT_MODE) await removeEntry(join(host, change.path), host);
      }
      for (const [i, change] of writes.entries()) {
        const target = join(host, change.path);
        await mkdir(dirname(target), { recursive: true });
        const from = staged[i] ?? '';
        await rename(from, target).catch(async (error: unknown) => {
          if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
          await copyEntry(from, target); // a mount point inside the project
        });
      }
    } catch (error) {
      if (isMcpActorsError(error)) throw error;
      throw new McpActorsError(ErrorCode.SANDBOX_FAILED, `applying the sandbox to ${host} failed: ${messageOf(error)}`, { cause: error });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  async #stage(change: TreeChange, file: string): Promise<string> {
    const source = join(this.root, change.path);
    const stats = await lstatOrUndefined(source);
    const wantLink = change.newMode === SYMLINK_MODE;
    if (!stats || (wantLink ? !stats.isSymbolicLink() : !stats.isFile())) {
      throw new McpActorsError(ErrorCode.SANDBOX_FAILED, `${change.path} changed in the sandbox while it was being applied; apply again when the agents are idle`);
    }
    if (wantLink) {
      await symlink(await readlink(source), file);
      return file;
    }
    await copyFile(source, file, constants.COPYFILE_FICLONE);
    await chmod(file, await this.#hostMode(change, stats));
    return file;
  }

  /** A modified file keeps the host's permission bits, with only the executable bit following git. */
  async #hostMode(change: TreeChange, sandboxStats: Stats): Promise<number> {
    if (change.oldMode !== '100644' && change.oldMode !== '100755') return sandboxStats.mode & 0o7777;
    const mode = (await lstat(join(this.logicalRoot, change.path))).mode & 0o7777;
    if (change.newMode === change.oldMode) return mode;
    return change.newMode === '100755' ? mode | ((mode & 0o444) >> 2) : mode & ~0o111;
  }

  /** The old baseline with the applied paths replaced: changes outside the project stay out. */
  async #advanceBaseline(changes: readonly TreeChange[]): Promise<string> {
    const { store, prefix, tempDir } = this.#layout;
    const options = { cwd: store.cwd, env: { ...store.env, GIT_INDEX_FILE: join(tempDir, 'advance.index') } };
    await runGit(['read-tree', this.#baseline], options);
    const lines = changes.map((c) =>
      c.newMode === ABSENT_MODE ? `0 ${'0'.repeat(c.oldOid.length)}\t${prefix}${c.path}\0` : `${c.newMode} ${c.newOid}\t${prefix}${c.path}\0`,
    );
    await runGit(['update-index', '-z', '--index-info'], { ...options, input: lines.join('') });
    const tree = (await runGit(['write-tree'], options)).stdout.trim();
    await rm(options.env.GIT_INDEX_FILE, { force: true });
    return tree;
  }

  async #teardown(): Promise<void> {
    const { worktree, hostTop, tempDir } = this.#layout;
    let gitError: unknown;
    if (worktree) {
      try {
        // git's own removal walks the tree slowly (seconds for a node_modules); empty it first and
        // keep only the `.git` file that lets `worktree remove` recognise it.
        const entries = await readdir(worktree).catch(() => []);
        await Promise.all(entries.filter((name) => name !== '.git').map((name) => rm(join(worktree, name), { recursive: true, force: true })));
        await runGit(['worktree', 'remove', '--force', '--force', worktree], { cwd: hostTop });
      } catch {
        // e.g. the directory is already gone or holds submodules: remove it by hand, then prune.
        await rm(tempDir, { recursive: true, force: true });
        await runGit(['worktree', 'prune'], { cwd: hostTop }).catch((error: unknown) => (gitError = error));
      }
    }
    await rm(tempDir, { recursive: true, force: true });
    if (gitError) {
      throw new McpActorsError(ErrorCode.SANDBOX_FAILED, `the sandbox of ${this.logicalRoot} was removed but its worktree entry was not; run \`git worktree prune\` in ${hostTop}`, {
        cause: gitError,
      });
    }
  }
}

async function projectDirectory(projectDir: string): Promise<string> {
  const resolved = await realpath(projectDir).catch(() => undefined);
  if (resolved === undefined || !(await stat(resolved)).isDirectory()) {
    throw new McpActorsError(ErrorCode.INVALID_ARGUMENT, `cannot sandbox ${projectDir}: it is not an existing directory`, {
      details: { projectDir },
    });
  }
  return resolved;
}

interface Repository {
  readonly top: string;
  readonly prefix: string;
  readonly commonDir: string;
}

/** The repository to make a worktree of, or undefined when the project must be copied instead. */
async function probeRepository(dir: string): Promise<Repository | undefined> {
  const where = await runGit(['rev-parse', '--show-toplevel', '--show-prefix'], { cwd: dir, okExitCodes: [128] });
  if (where.exitCode !== 0) return undefined; // not a repository, or inside .git / a bare one
  const [top = '', prefix = ''] = where.stdout.split('\n');
  const head = await runGit(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { cwd: top, okExitCodes: [1, 128] });
  if (head.exitCode !== 0) return undefined; // no commit yet: nothing to make a worktree of
  if (prefix !== '') {
    const ignored = await runGit(['check-ignore', '--quiet', '--', prefix.slice(0, -1)], { cwd: top, okExitCodes: [1] });
    if (ignored.exitCode === 0) return undefined; // the project is not part of the repository's content
  }
  const common = await runGit(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: top });
  return { top, prefix, commonDir: common.stdout.trim() };
}

async function createWorktree(logicalRoot: string, repo: Repository, tempDir: string, includeIgnored: boolean): Promise<Layout> {
  await runGit(['worktree', 'prune'], { cwd: repo.top });
  const worktree = join(tempDir, 'worktree');
  // Detached: no branch is created. No hooks: a user's post-checkout hook must not run for us.
  await runGit(['-c', 'core.hooksPath=/dev/null', 'worktree', 'add', '--quiet', '--detach', worktree, 'HEAD'], { cwd: repo.top });
  await carryHostWork(repo.top, worktree, tempDir, includeIgnored);

  // The private index starts as a copy of the worktree's own (same timestamps, so git's stat cache
  // and racy-file checks stay valid): only the carried files get hashed for the baseline.
  const ownIndex = (await runGit(['rev-parse', '--path-format=absolute', '--git-path', 'index'], { cwd: worktree })).stdout.trim();
  const index = join(tempDir, 'snapshot.index');
  await copyFile(ownIndex, index);
  const indexStats = await stat(ownIndex);
  await utimes(index, indexStats.atime, indexStats.mtime);
  const objects = join(tempDir, 'objects');
  await mkdir(objects);

  const root = join(worktree, ...repo.prefix.split('/').filter(Boolean));
  await mkdir(root, { recursive: true });
  return {
    kind: 'git-worktree',
    logicalRoot,
    root,
    tempDir,
    hostTop: repo.top,
    worktree,
    prefix: repo.prefix,
    // New objects (snapshots) go to the temp dir; the host's objects are read as an alternate.
    store: {
      cwd: worktree,
      env: { GIT_INDEX_FILE: index, GIT_OBJECT_DIRECTORY: objects, GIT_ALTERNATE_OBJECT_DIRECTORIES: quoteAlternate(join(repo.commonDir, 'objects')) },
    },
    hostHash: { cwd: logicalRoot, env: {} },
    addArgs: ['add', '--all'],
  };
}

/**
 * Makes the worktree look like the host's working tree: tracked files that differ from HEAD
 * (staged or not; deletions too), untracked files git does not ignore, and ignored ones on request.
 * Bytes and modes are copied; `git apply` would trip over filters and line-ending settings.
 */
async function carryHostWork(top: string, worktree: string, tempDir: string, includeIgnored: boolean): Promise<void> {
  const ours = relative(top, tempDir).split(sep).join('/');
  const notOurs = (path: string): boolean => !isStrictlyInside(tempDir, top) || (path !== ours && !path.startsWith(`${ours}/`));
  const skip: SkipEntry = (_, __, source) => source === tempDir;

  const tracked = splitNul(
    (await runGit(['diff', 'HEAD', '--name-only', '-z', '--no-renames', '--no-ext-diff', '--ignore-submodules=all'], { cwd: top })).stdout,
  );
  const present: string[] = [];
  for (const path of tracked) {
    const stats = await lstatOrUndefined(join(top, path));
    if (!stats) await removeEntry(join(worktree, path), worktree);
    else if (stats.isFile() || stats.isSymbolicLink()) present.push(path);
  }
  const others = ['ls-files', '--others', '--exclude-standard', '-z'];
  // An entry ending in `/` is a nested repository: not carried (git would not track its files either).
  const untracked = splitNul((await runGit(others, { cwd: top })).stdout).filter((p) => !p.endsWith('/'));
  const ignored = includeIgnored ? splitNul((await runGit([...others, '--ignored', '--directory'], { cwd: top })).stdout) : [];
  const paths = [...present, ...untracked, ...ignored.map((p) => p.replace(/\/$/, ''))].filter(notOurs);
  await Promise.all(paths.map((path) => carry(() => copyEntry(join(top, path), join(worktree, path), { skip }))));
}

async function createCopy(logicalRoot: string, tempDir: string, includeIgnored: boolean): Promise<Layout> {
  const copy = join(tempDir, 'copy');
  await copyTree(logicalRoot, copy, {
    skip: (_, entry, source) =>
      entry.name === '.git' || source === tempDir || (!includeIgnored && entry.name === 'node_modules' && entry.isDirectory()),
  });
  const gitDir = join(tempDir, 'store.git');
  await runGit(['init', '--quiet', '--bare', gitDir], { cwd: tempDir });
  return {
    kind: 'copy',
    logicalRoot,
    root: copy,
    tempDir,
    hostTop: logicalRoot,
    prefix: '',
    store: { cwd: copy, env: { GIT_DIR: gitDir, GIT_WORK_TREE: copy } },
    hostHash: { cwd: logicalRoot, env: { GIT_DIR: gitDir, GIT_WORK_TREE: logicalRoot } },
    // --force: a copied .gitignore does not hide files; node_modules is context, not change set.
    addArgs: ['add', '--all', '--force', '--', '.', ':(exclude,glob)**/node_modules/**'],
  };
}

/** Records the sandbox's current state as a tree in the private store; returns its id. */
async function snapshot(layout: Layout): Promise<string> {
  await runGit(layout.addArgs, layout.store);
  return (await runGit(['write-tree'], layout.store)).stdout.trim();
}

function matches(state: HostState, mode: string, oid: string): boolean {
  if (state === 'blocked') return false;
  return mode === ABSENT_MODE ? state.mode === ABSENT_MODE : state.mode === mode && state.oid === oid;
}

/** The first leading directory of `path` that is missing (`'missing'`) or not a directory (its path). */
async function blockingParent(path: string, parentStat: (rel: string) => Promise<Stats | undefined>): Promise<string | 'missing' | undefined> {
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i += 1) {
    const rel = parts.slice(0, i).join('/');
    const stats = await parentStat(rel);
    if (!stats) return 'missing';
    if (!stats.isDirectory()) return rel; // a file, or a symlink that could lead out of the project
  }
  return undefined;
}

/** GIT_ALTERNATE_OBJECT_DIRECTORIES is `:`-separated; a path holding `:` or `"` must be C-quoted. */
function quoteAlternate(path: string): string {
  return /[:"\\]/.test(path) ? `"${path.replace(/[\\"]/g, (c) => `\\${c}`)}"` : path;
}
