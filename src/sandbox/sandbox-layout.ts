/**
 * Making a sandbox: a detached worktree of the host repository carrying its uncommitted work, or a
 * copy of the project, plus the private baseline tree the sandbox's change set is measured from.
 */
import { copyFile, mkdir, readFile, realpath, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import { copyEntry, copyTree, isStrictlyInside, limiter, lstatOrUndefined, removeEntry, type SkipEntry } from './copy-tree.js';
import { planConfinement, type PreparedConfinement } from '../process/confinement/confinement-plan.js';
import { probeConfinement } from '../process/confinement/probe.js';
import { definedOnly, runGit, splitNul } from './sandbox-git.js';
import { type TreeStore } from './unified-diff.js';
import type { CheckpointSeed } from './checkpoint-store-dir.js';

export type SandboxKind = 'git-worktree' | 'copy';

export interface Layout {
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
  /**
   * The worktree's `.git` link as git wrote it (git kind only). A server can write the worktree,
   * so this entry is part of the sandbox's state that no call may change: confined servers see it
   * read-only, and `snapshot` puts it back before git runs (git itself never reads it: `GIT_DIR`
   * is pinned).
   */
  readonly gitLink?: { readonly path: string; readonly content: string };
  /**
   * For the checkpoint store of a worktree sandbox (`root` = the worktree): the checkout's own index,
   * copied before any other work was carried in, and the object directories its blobs are in.
   * Absent where a blob may differ from the checked-out bytes (filters, CRLF conversion) or the
   * project is a subdirectory of the repository.
   */
  readonly seed?: CheckpointSeed;
  /** What creation carried from the host into the worktree (git kind): all the baseline adds to HEAD. */
  readonly carried?: readonly string[];
  /** Runs `git hash-object` on host files with the same attributes and filters as the sandbox. */
  readonly hostHash: TreeStore;
  readonly addArgs: readonly string[];
}

const carry = limiter(8);

export async function projectDirectory(projectDir: string): Promise<string> {
  const resolved = await realpath(projectDir).catch(() => undefined);
  if (resolved === undefined || !(await stat(resolved)).isDirectory()) {
    throw new McpActorsError(ErrorCode.INVALID_ARGUMENT, `cannot sandbox ${projectDir}: it is not an existing directory`, {
      details: { projectDir },
    });
  }
  return resolved;
}

export interface Repository {
  readonly top: string;
  readonly prefix: string;
  readonly commonDir: string;
}

/** The repository to make a worktree of, or undefined when the project must be copied instead. */
export async function probeRepository(dir: string): Promise<Repository | undefined> {
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

export async function createWorktree(logicalRoot: string, repo: Repository, tempDir: string, includeIgnored: boolean): Promise<Layout> {
  await runGit(['worktree', 'prune'], { cwd: repo.top });
  const worktree = join(tempDir, 'worktree');
  // Detached: no branch is created. No hooks: a user's post-checkout hook must not run for us.
  await runGit(['worktree', 'add', '--quiet', '--detach', worktree, 'HEAD'], { cwd: repo.top });
  // Read now, before any server runs in the worktree: from here on git is pointed at the worktree's
  // administrative directory in the host's `.git` and never discovers a repository from the worktree.
  const adminDir = (await runGit(['rev-parse', '--path-format=absolute', '--git-dir'], { cwd: worktree })).stdout.trim();
  const gitLinkPath = join(worktree, '.git');
  const gitLink = { path: gitLinkPath, content: await readFile(gitLinkPath, 'utf8') };
  // The checkout's index knows every file's blob and stat: the checkpoint store starts from it.
  const seedIndex = join(tempDir, 'seed.index');
  await copyWithTimes(join(adminDir, 'index'), seedIndex);
  const exact = repo.prefix === '' && (await checkoutIsExact(repo, worktree, adminDir));
  const carried = await carryHostWork(repo.top, worktree, tempDir, includeIgnored);

  // The private index starts as a copy of the worktree's own (same timestamps, so git's stat cache
  // and racy-file checks stay valid): only the carried files get hashed for the baseline.
  const index = join(tempDir, 'snapshot.index');
  await copyWithTimes(seedIndex, index);
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
      env: {
        GIT_DIR: adminDir,
        GIT_WORK_TREE: worktree,
        GIT_INDEX_FILE: index,
        GIT_OBJECT_DIRECTORY: objects,
        GIT_ALTERNATE_OBJECT_DIRECTORIES: quoteAlternate(join(repo.commonDir, 'objects')),
      },
    },
    gitLink,
    ...(exact ? { seed: { index: seedIndex, objects: [join(repo.commonDir, 'objects'), objects] } } : {}),
    carried,
    hostHash: { cwd: logicalRoot, env: {} },
    addArgs: ['add', '--all'],
  };
}

/** A copy that keeps the timestamps (an index's: git's racy-file check compares them). */
async function copyWithTimes(from: string, to: string): Promise<void> {
  await copyFile(from, to);
  const times = await stat(from);
  await utimes(to, times.atime, times.mtime);
}

/** Settings that make a checked-out file differ from its blob (or its blob from the file). */
const CONVERSIONS = /\b(filter|ident|working-tree-encoding)\b|crlf/i;

/**
 * Whether every file of a fresh checkout holds exactly its blob's bytes: no attribute (in the
 * repository, its `info/attributes` or the user's attributes file) names a filter, `ident`, an
 * encoding or CRLF, and `core.autocrlf` / `core.eol` ask for no conversion. Read right after the
 * checkout, before any server runs in the worktree.
 */
async function checkoutIsExact(repo: Repository, worktree: string, adminDir: string): Promise<boolean> {
  const config = async (name: string): Promise<string> =>
    (await runGit(['config', '--get', name], { cwd: repo.top, okExitCodes: [1] })).stdout.trim().toLowerCase();
  if ((await config('core.autocrlf')) === 'true' || (await config('core.eol')) === 'crlf') return false;
  const listed = splitNul(
    (
      await runGit(['ls-files', '-z', '--', ':(glob)**/.gitattributes'], {
        cwd: worktree,
        env: { GIT_DIR: adminDir, GIT_WORK_TREE: worktree },
      })
    ).stdout,
  );
  const userFile = (await runGit(['config', '--path', '--get', 'core.attributesFile'], { cwd: repo.top, okExitCodes: [1] })).stdout.trim();
  const xdg = join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'git', 'attributes');
  const files = [...listed.map((path) => join(worktree, path)), join(repo.commonDir, 'info', 'attributes'), userFile || xdg];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (CONVERSIONS.test(text)) return false;
  }
  return true;
}

/**
 * Makes the worktree look like the host's working tree: tracked files that differ from HEAD
 * (staged or not; deletions too), untracked files git does not ignore, and ignored ones on request.
 * Bytes and modes are copied; `git apply` would trip over filters and line-ending settings.
 */
export async function carryHostWork(top: string, worktree: string, tempDir: string, includeIgnored: boolean): Promise<string[]> {
  const ours = relative(top, tempDir).split(sep).join('/');
  const notOurs = (path: string): boolean => !isStrictlyInside(tempDir, top) || (path !== ours && !path.startsWith(`${ours}/`));
  const skip: SkipEntry = (_, __, source) => source === tempDir;

  // One scan of the host: tracked files that differ from HEAD (staged or not), untracked ones, and
  // — on request — ignored ones (a folder an ignore pattern names, as `dir/`, not its files).
  const status = ['status', '--porcelain=v2', '-z', '--no-renames', '--untracked-files=all', '--ignore-submodules=all'];
  const {
    tracked,
    untracked: others,
    ignored,
  } = parseStatus((await runGit(includeIgnored ? [...status, '--ignored=matching'] : status, { cwd: top })).stdout);
  const present: string[] = [];
  for (const path of tracked) {
    const stats = await lstatOrUndefined(join(top, path));
    if (!stats) await removeEntry(join(worktree, path), worktree);
    else if (stats.isFile() || stats.isSymbolicLink()) present.push(path);
  }
  // An entry ending in `/` is a nested repository: not carried (git would not track its files either).
  const untracked = others.filter((p) => !p.endsWith('/'));
  const paths = [...present, ...untracked, ...ignored.map((p) => p.replace(/\/$/, ''))].filter(notOurs);
  await Promise.all(paths.map((path) => carry(() => copyEntry(join(top, path), join(worktree, path), { skip }))));
  // Ignored files are context, never part of the change set: not in the baseline either.
  return [...tracked, ...untracked].filter(notOurs);
}

/** `git status --porcelain=v2 -z` records: changed tracked paths (ordinary and unmerged), untracked, ignored. */
export function parseStatus(output: string): { tracked: string[]; untracked: string[]; ignored: string[] } {
  const found = { tracked: [] as string[], untracked: [] as string[], ignored: [] as string[] };
  for (const record of splitNul(output)) {
    const kind = record[0];
    // Fields before the path: 8 for an ordinary change ("1 XY sub mH mI mW hH hI"), 10 for an unmerged one.
    if (kind === '1' || kind === 'u')
      found.tracked.push(
        record
          .split(' ')
          .slice(kind === '1' ? 8 : 10)
          .join(' '),
      );
    else if (kind === '?') found.untracked.push(record.slice(2));
    else if (kind === '!') found.ignored.push(record.slice(2));
  }
  return found;
}

export async function createCopy(logicalRoot: string, tempDir: string, includeIgnored: boolean): Promise<Layout> {
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

/**
 * Records the sandbox's current state as a tree in the private store; returns its id.
 *
 * `git add` reads each file by its path, so a server still running in the sandbox can swap a
 * directory for a link to a host folder between git's look and its read (see `tree-blobs.ts`, which
 * the checkpoints use instead; `git add` stays here for the project's own filters and attributes).
 * Wherever bubblewrap works, which is where servers are confined, git reads in a box that sees no
 * more of the host than a confined server: the host's temp dir, the default denied paths (`~/.ssh`,
 * …), the project's `.env` files and `deniedReads` (the extra `deny` paths of the servers confined
 * in the sandbox) hidden, no network; only the sandbox's own folder is writable.
 */
export async function snapshot(layout: Layout, deniedReads: readonly string[] = []): Promise<string> {
  await restoreGitLink(layout);
  const box = snapshotBox(layout, deniedReads);
  try {
    await runGit(layout.addArgs, box === undefined ? layout.store : { ...layout.store, confined: box.plan });
  } finally {
    box?.dispose();
  }
  return (await runGit(['write-tree'], layout.store)).stdout.trim();
}

/** More carried paths than this and the baseline is taken by a whole `git add --all`. */
const CARRIED_PATHSPEC_LIMIT = 2_000;

/**
 * The tree a new sandbox starts from. A worktree's private index is the checkout's, so HEAD plus
 * the carried paths is all there is to add: no server has run in the worktree yet, so git may read
 * them by path, and nothing else of the tree is looked at. Otherwise (a copy, or very many carried
 * paths) a whole snapshot.
 */
export async function baselineOf(layout: Layout): Promise<string> {
  const carried = layout.carried;
  if (layout.kind !== 'git-worktree' || carried === undefined || carried.length > CARRIED_PATHSPEC_LIMIT) return snapshot(layout);
  if (carried.length > 0) {
    const added = await runGit(['add', '--all', '--', ...carried], {
      ...layout.store,
      env: { ...layout.store.env, GIT_LITERAL_PATHSPECS: '1' },
    }).then(
      () => true,
      () => false, // a host file gone between the scan and the copy: the whole snapshot copes
    );
    if (!added) return snapshot(layout);
  }
  return (await runGit(['write-tree'], layout.store)).stdout.trim();
}

/**
 * Puts the worktree's `.git` link back as git wrote it when something replaced it (an unconfined
 * server, or a change made outside any call): git never reads it, but a person or tool running git
 * in the worktree would. Returns whether it had to.
 */
export async function restoreGitLink(layout: Layout): Promise<boolean> {
  const link = layout.gitLink;
  if (link === undefined) return false;
  const stats = await lstatOrUndefined(link.path);
  if (stats?.isFile() && (await readFile(link.path, 'utf8').catch(() => undefined)) === link.content) return false;
  if (stats) await rm(link.path, { recursive: true, force: true });
  await writeFile(link.path, link.content, { flag: 'wx' });
  return true;
}

function snapshotBox(layout: Layout, deny: readonly string[]): PreparedConfinement | undefined {
  const probe = probeConfinement(process.env.PATH);
  // A probe cut short by a loaded machine (even after its retries) fails the diff: were git to read
  // unboxed, a server swapping a folder for a link to a denied one would get that folder into it.
  if (!probe.available && probe.transient) {
    throw new McpActorsError(
      ErrorCode.SANDBOX_FAILED,
      `could not start the box the sandbox's git reads in (${probe.reason}); the machine is busy: try again`,
      {
        details: { reason: probe.reason },
      },
    );
  }
  if (!probe.available) return undefined;
  // `args` names the project, so a project under the host's temp dir (and its repository) stays readable.
  const setting = { root: layout.tempDir, network: 'none' as const, project: layout.logicalRoot, deny: [...deny] };
  const target = {
    serverName: 'sandbox-snapshot',
    setting,
    env: definedOnly(process.env),
    cwd: layout.store.cwd,
    command: 'git',
    args: [layout.hostTop],
  };
  return planConfinement(target, probe.bwrap);
}

/** GIT_ALTERNATE_OBJECT_DIRECTORIES is `:`-separated; a path holding `:` or `"` must be C-quoted. */
function quoteAlternate(path: string): string {
  return /[:"\\]/.test(path) ? `"${path.replace(/[\\"]/g, (c) => `\\${c}`)}"` : path;
}
