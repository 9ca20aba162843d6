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
import { chmod, copyFile, lstat, mkdir, mkdtemp, readlink, realpath, rename, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, isMcpActorsError, messageOf } from '../errors/mcp-actors-error.js';
import { copyEntry, limiter, lstatOrUndefined, removeEntry } from './copy-tree.js';
import type { CheckpointSeed } from './checkpoint-store-dir.js';
import { removeInBackground, TRASH_PREFIX } from '../process/process-groups.js';
import { runGit } from './sandbox-git.js';
import { ABSENT_MODE, treeChanges, unifiedDiff, type TreeChange } from './unified-diff.js';
import {
  checkpointsDirOf,
  inUseElsewhere,
  leftBehindSandboxes,
  readSandboxManifest,
  SANDBOX_DIR_PREFIX,
  sandboxDirOf,
  writeSandboxManifest,
  type LeftSandbox,
  type SandboxManifest,
} from './sandbox-reopen.js';
import {
  baselineOf,
  createCopy,
  createWorktree,
  probeRepository,
  projectDirectory,
  snapshot,
  type Layout,
  type SandboxKind,
} from './sandbox-layout.js';

export interface SandboxOptions {
  /** The host project (the logical root). */
  readonly projectDir: string;
  /** Carry files git ignores (`node_modules`, `dist`, …; in a copy: `node_modules`). Default false. */
  readonly includeIgnored?: boolean;
  /** Parent directory for the sandbox. Default `os.tmpdir()`. */
  readonly tempDir?: string;
  /**
   * Names the sandbox (1-64 letters, digits, `-`, `_`). When a sandbox of that id exists — a
   * crashed host left it — it is reopened as it was, checkpoints included, instead of made anew.
   */
  readonly id?: string;
}

export type { SandboxKind } from './sandbox-layout.js';
export type { LeftSandbox } from './sandbox-reopen.js';

export interface ChangedFile {
  /** Relative to the project directory, `/`-separated. */
  readonly path: string;
  readonly kind: 'added' | 'modified' | 'deleted';
  /**
   * True when a runtime runs tool calls in this sandbox and no committed call left the path as it
   * is now: it was written between calls (a server that outlived its call, a process outside the
   * runtime). `applyToHost()` refuses such changes unless asked to include them.
   */
  readonly unattributed?: true;
}

export interface ApplyOptions {
  /**
   * Apply changes no committed tool call made as well (see `ChangedFile.unattributed`). Default
   * false: such changes make `applyToHost()` refuse with APPLY_CONFLICT and write nothing.
   */
  readonly includeUnattributed?: boolean;
}

export interface ApplyResult {
  /** Paths written or deleted on the host (relative to the project directory). */
  readonly applied: string[];
}

/** What a committed call reports of one path it changed (a `FileChange` of the call's outcome). */
export interface CommittedChange {
  readonly path: string;
  /** The git blob id of the content after the call; undefined when the call deleted the path. */
  readonly after?: string | undefined;
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
  /** Its id: what `create({ id })` reopens it by, and what `leftBehind()` lists. */
  readonly id: string;
  /** Where the checkpoints of this sandbox are kept, so they survive a crash of the host. */
  readonly checkpointsDir: string;
  /** True when `create({ id })` found it left behind and reopened it. */
  readonly reopened: boolean;
  /**
   * What git already knows of the sandbox's files, for the checkpoint store a runtime opens on it
   * (its first snapshot then reads only what differs from the checkout). Undefined where it would
   * not be exact (see `sandbox-layout.ts`).
   */
  readonly checkpointSeed: CheckpointSeed | undefined;
  readonly #layout: Layout;
  readonly #createdAt: number;
  #baseline: string;
  #tail: Promise<unknown> = Promise.resolve();
  #disposed: Promise<void> | undefined;
  /** Paths `diff()` and `applyToHost()` never read through a link (see `denyReads`). */
  readonly #deniedReads = new Set<string>();
  /**
   * When a runtime runs calls here: each path committed calls changed, with every content they left
   * (`''` for deleted), so a change is attributed if some call left the path exactly so.
   */
  #attributed: Map<string, Set<string>> | undefined;

  private constructor(layout: Layout, baseline: string, id: string, createdAt: number, reopened: boolean) {
    this.#layout = layout;
    this.#baseline = baseline;
    this.id = id;
    this.#createdAt = createdAt;
    this.reopened = reopened;
    this.checkpointsDir = checkpointsDirOf(layout.tempDir);
    this.logicalRoot = layout.logicalRoot;
    this.root = layout.root;
    this.kind = layout.kind;
    this.checkpointSeed = layout.seed;
  }

  /** Makes the sandbox; prunes worktree bookkeeping a crashed process left behind first. */
  static async create(options: SandboxOptions): Promise<Sandbox> {
    const logicalRoot = await projectDirectory(options.projectDir);
    const includeIgnored = options.includeIgnored ?? false;
    const repository = await probeRepository(logicalRoot);
    const cannotMake = (error: unknown): never => {
      throw new McpActorsError(
        ErrorCode.SANDBOX_FAILED,
        `cannot make a sandbox directory in ${options.tempDir ?? tmpdir()}: ${messageOf(error)}`,
        {
          cause: error,
        },
      );
    };
    const base = await realpath(options.tempDir ?? tmpdir()).catch(cannotMake);
    let tempDir: string;
    if (options.id !== undefined) {
      tempDir = sandboxDirOf(base, options.id);
      const left = await readSandboxManifest(tempDir);
      if (left) return Sandbox.#reopen(left, logicalRoot);
      // A directory without a manifest is a sandbox whose making was cut short: made again.
      await rm(tempDir, { recursive: true, force: true });
      await mkdir(tempDir).catch(cannotMake);
    } else {
      tempDir = await mkdtemp(join(base, SANDBOX_DIR_PREFIX)).catch(cannotMake);
    }
    try {
      const layout = repository
        ? await createWorktree(logicalRoot, repository, tempDir, includeIgnored)
        : await createCopy(logicalRoot, tempDir, includeIgnored);
      const id = options.id ?? tempDir.slice(join(base, SANDBOX_DIR_PREFIX).length);
      const sandbox = new Sandbox(layout, await baselineOf(layout), id, Date.now(), false);
      await sandbox.#saveManifest();
      return sandbox;
    } catch (error) {
      await rm(tempDir, { recursive: true, force: true });
      // Best effort: the error being thrown is the one worth reporting; create() prunes next time anyway.
      if (repository) await runGit(['worktree', 'prune'], { cwd: repository.top }).catch(() => undefined);
      if (isMcpActorsError(error)) throw error;
      throw new McpActorsError(ErrorCode.SANDBOX_FAILED, `could not create a sandbox of ${logicalRoot}: ${messageOf(error)}`, {
        cause: error,
      });
    }
  }

  static async #reopen(manifest: SandboxManifest, logicalRoot: string): Promise<Sandbox> {
    if (manifest.layout.logicalRoot !== logicalRoot) {
      throw new McpActorsError(
        ErrorCode.SANDBOX_FAILED,
        `sandbox "${manifest.id}" is a sandbox of ${manifest.layout.logicalRoot}, not of ${logicalRoot}; pick another id or the project it belongs to`,
        { details: { id: manifest.id, projectDir: manifest.layout.logicalRoot } },
      );
    }
    if (inUseElsewhere(manifest)) {
      throw new McpActorsError(
        ErrorCode.SANDBOX_FAILED,
        `sandbox "${manifest.id}" is in use by process ${manifest.pid}; only a sandbox whose host is gone can be reopened`,
        {
          details: { id: manifest.id, pid: manifest.pid },
        },
      );
    }
    if (manifest.layout.kind === 'git-worktree' && manifest.layout.store.env.GIT_DIR === undefined) {
      // Made before git was pinned to the worktree's own git directory: reopening it would let git
      // discover a repository from the worktree, which a server could have replaced.
      throw new McpActorsError(
        ErrorCode.SANDBOX_FAILED,
        `sandbox "${manifest.id}" was made by an older version of mcp-actors and cannot be reopened safely; its files are in ${manifest.layout.root}: ` +
          `copy what you need, then remove ${manifest.layout.tempDir} and run \`git worktree prune\` in ${manifest.layout.hostTop}`,
        { details: { id: manifest.id, root: manifest.layout.root } },
      );
    }
    const sandbox = new Sandbox(manifest.layout, manifest.baseline, manifest.id, manifest.createdAt, true);
    await sandbox.#saveManifest();
    return sandbox;
  }

  /**
   * The sandboxes under `tempDir` (default the OS temp dir) whose host is gone, so `create({ id })`
   * can reopen them or `create({ id })` + `dispose()` remove them.
   */
  static leftBehind(tempDir?: string): Promise<LeftSandbox[]> {
    return leftBehindSandboxes(tempDir);
  }

  #saveManifest(): Promise<void> {
    return writeSandboxManifest({
      version: 1,
      id: this.id,
      pid: process.pid,
      createdAt: this.#createdAt,
      layout: this.#layout,
      baseline: this.#baseline,
    });
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

  /**
   * Adds host paths that `diff()` and `applyToHost()` must never read, on top of the default denied
   * folders (`~/.ssh`, …) and the project's `.env` files. Their `git add` reads files by path, and a
   * server still running in the sandbox could swap a directory for a link to such a path; where
   * bubblewrap works, git runs in a box that hides them. The runtime adds the extra `confine.deny`
   * paths of every server it confines in the sandbox; a host that confines servers itself adds
   * theirs. Paths are absolute; a path that does not exist is ignored.
   */
  denyReads(paths: Iterable<string>): void {
    const given = [...paths];
    const at = given.findIndex((path) => typeof path !== 'string' || !isAbsolute(path));
    if (at !== -1) {
      // A JavaScript caller can pass anything.
      const notAbsolute: unknown = given[at];
      throw new McpActorsError(
        ErrorCode.INVALID_ARGUMENT,
        `denyReads() takes absolute paths, got ${JSON.stringify(notAbsolute)}: resolve it first (path.resolve)`,
        {
          details: { path: String(notAbsolute) },
        },
      );
    }
    for (const path of given) this.#deniedReads.add(resolve(path));
  }

  /**
   * From now on, changes are attributed to the tool calls that made them (`noteCommitted`); any
   * other change is listed as unattributed and not applied unless asked for. The runtime calls
   * this when it first runs calls in the sandbox.
   */
  trackCalls(): void {
    this.#attributed ??= new Map();
  }

  /** A committed call's changes (the runtime reports each one). */
  noteCommitted(changes: readonly CommittedChange[]): void {
    if (this.#attributed === undefined) return;
    for (const change of changes) {
      let seen = this.#attributed.get(change.path);
      if (!seen) this.#attributed.set(change.path, (seen = new Set()));
      seen.add(change.after ?? '');
    }
  }

  #isAttributed(change: TreeChange): boolean {
    if (this.#attributed === undefined) return true;
    return this.#attributed.get(change.path)?.has(change.newMode === ABSENT_MODE ? '' : change.newOid) ?? false;
  }

  /** The change set since creation (or the last `applyToHost()`) as a unified diff. */
  diff(): Promise<string> {
    return this.#serial(async () => {
      const { store, prefix } = this.#layout;
      return unifiedDiff(store, this.#baseline, await snapshot(this.#layout, [...this.#deniedReads]), prefix);
    });
  }

  changedFiles(): Promise<ChangedFile[]> {
    return this.#serial(async () =>
      (await this.#changes()).map((change) => ({
        path: change.path,
        kind: change.kind,
        ...(this.#isAttributed(change) ? {} : { unattributed: true as const }),
      })),
    );
  }

  /**
   * Writes the change set into the project directory. Every changed path is checked first: if the
   * host changed it since the sandbox was made, throws APPLY_CONFLICT naming those files and writes
   * nothing. Files already identical on the host are left alone. Afterwards the baseline moves to
   * what was applied, so a second call is a no-op and later edits form the next change set.
   * Call it while nothing is writing to the sandbox. Where a runtime runs calls in the sandbox,
   * changes no committed call made refuse the whole apply (APPLY_CONFLICT, `details.unattributed`)
   * unless `includeUnattributed` is set.
   */
  applyToHost(options: ApplyOptions = {}): Promise<ApplyResult> {
    return this.#serial(async () => {
      const changes = await this.#changes();
      if (changes.length === 0) return { applied: [] };
      const unattributed = options.includeUnattributed
        ? []
        : changes.filter((change) => !this.#isAttributed(change)).map((change) => change.path);
      if (unattributed.length > 0) {
        throw new McpActorsError(
          ErrorCode.APPLY_CONFLICT,
          `cannot apply the sandbox to ${this.logicalRoot}: ${unattributed.length} change(s) were made outside any committed tool call: ` +
            `${unattributed.join(', ')}. Nothing was written; look at them (diff()), then call applyToHost({ includeUnattributed: true }) to apply them too.`,
          { details: { unattributed } },
        );
      }
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
      const links = await this.#linkTargets(pending);
      await this.#write(pending, links);
      this.#baseline = await this.#advanceBaseline(changes);
      for (const change of changes) this.#attributed?.delete(change.path);
      await this.#saveManifest();
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
      return Promise.reject(
        new McpActorsError(ErrorCode.SANDBOX_FAILED, `the sandbox of ${this.logicalRoot} has been disposed; create a new one`),
      );
    }
    const run = this.#tail.then(task, task);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  async #changes(): Promise<TreeChange[]> {
    const { store, prefix } = this.#layout;
    return treeChanges(store, this.#baseline, await snapshot(this.#layout, [...this.#deniedReads]), prefix);
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

  /**
   * What each link to be applied will point to on the host. A link is the project's only where it
   * stays in the project: an absolute target inside the sandbox is moved to the same place in the
   * project (as it was, it would dangle into the temp dir after `dispose()`, where anyone can plant
   * a file); an absolute target elsewhere, or a relative one that climbs out of the project, is
   * refused with SANDBOX_ESCAPE before anything is written.
   */
  async #linkTargets(pending: readonly TreeChange[]): Promise<Map<string, string>> {
    const { worktree, hostTop } = this.#layout;
    // The sandbox as a whole (a worktree: the repository) and where it stands on the host.
    const sandboxTop = worktree ?? this.root;
    const tops = [...new Set([sandboxTop, await realpath(sandboxTop).catch(() => sandboxTop)])];
    const targets = new Map<string, string>();
    const refused: { path: string; target: string }[] = [];
    for (const change of pending) {
      if (change.newMode !== SYMLINK_MODE) continue;
      const target = await readlink(join(this.root, change.path)).catch(() => undefined);
      if (target === undefined) continue; // gone meanwhile: #stage says so
      let onHost = target;
      if (isAbsolute(target)) {
        const top = tops.find((candidate) => isInsideDir(resolve(target), candidate));
        if (top !== undefined) onHost = join(hostTop, relative(top, resolve(target)));
      }
      const resolved = resolve(this.logicalRoot, dirname(change.path), onHost);
      if (!isInsideDir(resolved, this.logicalRoot)) refused.push({ path: change.path, target });
      else targets.set(change.path, onHost);
    }
    if (refused.length > 0) {
      throw new McpActorsError(
        ErrorCode.SANDBOX_ESCAPE,
        `cannot apply the sandbox to ${this.logicalRoot}: ${refused.length} link(s) point outside the project: ` +
          `${refused.map((link) => `${link.path} -> ${link.target}`).join(', ')}. Nothing was written; remove them or point them inside the project.`,
        { details: { links: refused } },
      );
    }
    return targets;
  }

  /** Stages every new file beside the project first, so a failure before the renames changes nothing. */
  async #write(pending: readonly TreeChange[], links: ReadonlyMap<string, string>): Promise<void> {
    const host = this.logicalRoot;
    const writes = pending.filter((c) => c.newMode !== ABSENT_MODE);
    const staging = await mkdtemp(join(host, '.mcp-actors-apply-'));
    try {
      const staged = await Promise.all(
        writes.map((change, i) => carry(() => this.#stage(change, join(staging, String(i)), links.get(change.path)))),
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

  async #stage(change: TreeChange, file: string, linkTarget: string | undefined): Promise<string> {
    const source = join(this.root, change.path);
    const stats = await lstatOrUndefined(source);
    const wantLink = change.newMode === SYMLINK_MODE;
    const changedMeanwhile = (): McpActorsError =>
      new McpActorsError(
        ErrorCode.SANDBOX_FAILED,
        `${change.path} changed in the sandbox while it was being applied; apply again when the agents are idle`,
      );
    if (!stats || (wantLink ? !stats.isSymbolicLink() : !stats.isFile())) throw changedMeanwhile();
    if (wantLink) {
      if (linkTarget === undefined) throw changedMeanwhile();
      await symlink(linkTarget, file);
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
      c.newMode === ABSENT_MODE
        ? `0 ${'0'.repeat(c.oldOid.length)}\t${prefix}${c.path}\0`
        : `${c.newMode} ${c.newOid}\t${prefix}${c.path}\0`,
    );
    await runGit(['update-index', '-z', '--index-info'], { ...options, input: lines.join('') });
    const tree = (await runGit(['write-tree'], options)).stdout.trim();
    await rm(options.env.GIT_INDEX_FILE, { force: true });
    return tree;
  }

  /**
   * Renames the sandbox directory aside (instant on the same file system), drops the worktree's
   * bookkeeping from the host's `.git`, and removes the files in the background: `dispose()` returns
   * at once whatever the size. If the host exits first, crash included, the reaper finishes it.
   */
  async #teardown(): Promise<void> {
    const { worktree, hostTop, tempDir } = this.#layout;
    const trash = join(dirname(tempDir), `${TRASH_PREFIX}${basename(tempDir)}`);
    const renamed = await rename(tempDir, trash).then(
      () => true,
      async (error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
        await rm(tempDir, { recursive: true, force: true });
        return false;
      },
    );
    if (renamed) void removeInBackground(trash);
    if (!worktree) return;
    // Its directory is gone from where the bookkeeping says, so prune drops just that entry.
    await runGit(['worktree', 'prune'], { cwd: hostTop }).catch((error: unknown) => {
      throw new McpActorsError(
        ErrorCode.SANDBOX_FAILED,
        `the sandbox of ${this.logicalRoot} was removed but its worktree entry was not; run \`git worktree prune\` in ${hostTop}`,
        {
          cause: error,
        },
      );
    });
  }
}

function isInsideDir(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function matches(state: HostState, mode: string, oid: string): boolean {
  if (state === 'blocked') return false;
  return mode === ABSENT_MODE ? state.mode === ABSENT_MODE : state.mode === mode && state.oid === oid;
}

/** The first leading directory of `path` that is missing (`'missing'`) or not a directory (its path). */
async function blockingParent(path: string, parentStat: (rel: string) => Promise<Stats | undefined>): Promise<string | undefined> {
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i += 1) {
    const rel = parts.slice(0, i).join('/');
    const stats = await parentStat(rel);
    if (!stats) return 'missing';
    if (!stats.isDirectory()) return rel; // a file, or a symlink that could lead out of the project
  }
  return undefined;
}
