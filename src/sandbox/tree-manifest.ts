/**
 * What git does not keep, kept beside each checkpoint's tree: exact permission bits (git records
 * only 644, 755 and symlinks), every directory (git drops empty ones) and the entries git refuses
 * to index at all (any path with a `.git` component below the top, symlinks named `.gitmodules`).
 * Also the walk that finds them, and the steps that put them back.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, hasErrorCode, messageOf } from '../errors/mcp-actors-error.js';
import { BeneathRoot, readLinkBeneath } from './tree-blobs.js';
import { gitPerm, parentOf } from './tree-entries.js';

export type EntryType = 'file' | 'symlink' | 'dir' | 'other';

/** One `lstat` of the walk: enough to tell whether an entry changed since the last walk. */
export interface EntryStat {
  readonly type: EntryType;
  /** `mode & 0o7777`: permission bits plus setuid, setgid and sticky. */
  readonly perm: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
}

/** Every entry under the root by relative `/`-separated path; `''` is the root itself. */
export type TreeWalk = ReadonlyMap<string, EntryStat>;

export type ExtraEntry =
  | { readonly path: string; readonly type: 'file'; readonly blob: string; readonly perm: number }
  | { readonly path: string; readonly type: 'symlink'; readonly target: string };

/** The part of a snapshot that is not in its git tree. Arrays are sorted by path, so equal trees serialize equally. */
export interface TreeManifest {
  readonly format: 1;
  /** Every directory, the root (`''`) included, with its exact permission bits. */
  readonly dirs: readonly (readonly [path: string, perm: number])[];
  /** Indexed regular files whose permission bits are not what git restores (644, or 755 with the owner's x bit). */
  readonly modes: readonly (readonly [path: string, perm: number])[];
  /** Files and symlinks git cannot index; file contents are blobs in the private object store. */
  readonly extras: readonly ExtraEntry[];
}

/** Lookup tables over a manifest. */
export interface ManifestIndex {
  readonly dirs: ReadonlyMap<string, number>;
  readonly modes: ReadonlyMap<string, number>;
  readonly extras: ReadonlyMap<string, ExtraEntry>;
}

/** A cheap pre-test for `isUnindexable`, which runs for every path of every snapshot. */
const MAYBE_DOT_GIT = /\.git/i;

/** How many entries the walk reads between yields to the event loop. */
const YIELD_EVERY = 2_000;

/**
 * Reads every entry under `root` with `lstat` (never following a symlink), except a `.git` entry at
 * the top, which belongs to the worktree. Vanished entries are skipped; unreadable ones throw.
 * `from` walks only that subtree (itself included), keyed by paths relative to `root` as well.
 * Directories are listed, and entries stat'ed, through descriptors opened beneath the root
 * (`BeneathRoot`): a directory swapped for a link to a folder outside, while the walk runs, is
 * skipped as gone, never listed (the names and modes of `~/.ssh` never reach a manifest).
 * `tree` shares the descriptors of a caller's walk.
 */
export async function walkTree(root: string, from = '', tree?: BeneathRoot): Promise<Map<string, EntryStat>> {
  const beneath = tree ?? new BeneathRoot(root);
  try {
    return await walkBeneath(root, from, beneath);
  } finally {
    if (tree === undefined) beneath.close();
  }
}

async function walkBeneath(root: string, from: string, tree: BeneathRoot): Promise<Map<string, EntryStat>> {
  const entries = new Map<string, EntryStat>();
  entries.set(from, from === '' ? statEntry(root) : entryStat(tree.lstat(from)));
  const pending: string[] = entries.get(from)?.type === 'dir' ? [from] : [];
  let sinceYield = 0;
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    let names: string[];
    try {
      names = tree.list(dir);
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT') || hasErrorCode(error, 'ENOTDIR')) continue;
      throw walkError(dir, error);
    }
    if (names.some((name) => name.includes('\uFFFD'))) assertUtf8Names(tree.list(dir, 'buffer'), dir);
    for (const name of names) {
      if (dir === '' && name === '.git') continue;
      const path = dir === '' ? name : `${dir}/${name}`;
      let stat: EntryStat;
      try {
        stat = entryStat(tree.lstat(path));
      } catch (error) {
        if (hasErrorCode(error, 'ENOENT') || hasErrorCode(error, 'ENOTDIR')) continue;
        throw walkError(path, error);
      }
      entries.set(path, stat);
      if (stat.type === 'dir') pending.push(path);
    }
    sinceYield += names.length;
    if (sinceYield >= YIELD_EVERY) {
      sinceYield = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return entries;
}

/** True when the two stats describe the same, unchanged entry. */
export function sameStat(a: EntryStat, b: EntryStat): boolean {
  return (
    a.type === b.type && a.perm === b.perm && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino
  );
}

/**
 * True for entries git refuses to index (it skips them with "Ignoring path"): a path with a `.git`
 * component in any letter case, and a symlink with a `.gitmodules` component. They go to the
 * manifest's `extras` instead.
 */
export function isUnindexable(path: string, type: EntryType): boolean {
  if (!MAYBE_DOT_GIT.test(path)) return false;
  for (const part of path.split('/')) {
    const lower = part.toLowerCase();
    if (lower === '.git') return true;
    if (type === 'symlink' && lower === '.gitmodules') return true;
  }
  return false;
}

/**
 * The manifest of a walk. `extraBlobs` holds the blob id of every unindexable file; symlink
 * targets of unindexable symlinks are read here.
 */
export function buildManifest(root: string, walk: TreeWalk, extraBlobs: ReadonlyMap<string, string>): TreeManifest {
  const dirs: [string, number][] = [];
  const modes: [string, number][] = [];
  const extras: ExtraEntry[] = [];
  for (const [path, stat] of walk) {
    const item = manifestItem(root, path, stat, extraBlobs);
    if (item?.kind === 'dir') dirs.push([path, item.perm]);
    else if (item?.kind === 'mode') modes.push([path, item.perm]);
    else if (item?.kind === 'extra') extras.push(item.entry);
  }
  const byPath =
    <T>(key: (item: T) => string) =>
    (a: T, b: T) =>
      compareStrings(key(a), key(b));
  dirs.sort(byPath((item) => item[0]));
  modes.sort(byPath((item) => item[0]));
  extras.sort(byPath((item) => item.path));
  return { format: 1, dirs, modes, extras };
}

/** Where one walk entry goes in the manifest, if anywhere. */
export type ManifestItem =
  | { readonly kind: 'dir'; readonly perm: number }
  | { readonly kind: 'mode'; readonly perm: number }
  | { readonly kind: 'extra'; readonly entry: ExtraEntry };

/** The manifest item of one entry: `buildManifest` for a single path (reads an unindexable symlink's target). */
export function manifestItem(
  root: string,
  path: string,
  stat: EntryStat,
  extraBlobs: ReadonlyMap<string, string>,
): ManifestItem | undefined {
  if (stat.type === 'dir') return { kind: 'dir', perm: stat.perm };
  if (stat.type !== 'file' && stat.type !== 'symlink') return undefined;
  if (isUnindexable(path, stat.type)) {
    if (stat.type === 'symlink') return { kind: 'extra', entry: { path, type: 'symlink', target: readLinkBeneath(root, path) } };
    const blob = extraBlobs.get(path);
    if (blob === undefined) throw new Error(`no blob for unindexable file ${JSON.stringify(path)}`);
    return { kind: 'extra', entry: { path, type: 'file', blob, perm: stat.perm } };
  }
  return stat.type === 'file' && stat.perm !== gitPerm(stat.perm) ? { kind: 'mode', perm: stat.perm } : undefined;
}

/**
 * Lookup tables over a manifest. Built once per array: consecutive manifests share the arrays of
 * the categories nothing changed in (`ManifestTables.update`), so they share the tables too, and
 * a change set can skip a category whose tables are the same object on both sides.
 */
export function indexManifest(manifest: TreeManifest): ManifestIndex {
  return {
    dirs: tableOf(manifest.dirs, () => new Map(manifest.dirs)),
    modes: tableOf(manifest.modes, () => new Map(manifest.modes)),
    extras: tableOf(manifest.extras, () => new Map(manifest.extras.map((entry) => [entry.path, entry]))),
  };
}

const tables = new WeakMap<object, ReadonlyMap<string, unknown>>();
function tableOf<V>(array: object, build: () => ReadonlyMap<string, V>): ReadonlyMap<string, V> {
  let table = tables.get(array) as ReadonlyMap<string, V> | undefined;
  if (!table) tables.set(array, (table = build()));
  return table;
}

/** Writes the manifest content-addressed (sha256 of its JSON) into `dir`, atomically; returns the id. */
export async function saveManifest(dir: string, manifest: TreeManifest): Promise<string> {
  const text = JSON.stringify(manifest);
  const id = createHash('sha256').update(text).digest('hex');
  const file = join(dir, `${id}.json`);
  try {
    lstatSync(file);
    return id;
  } catch {
    // not stored yet
  }
  await mkdir(dir, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, file);
  return id;
}

export async function loadManifest(dir: string, id: string): Promise<TreeManifest> {
  const parsed = JSON.parse(await readFile(join(dir, `${id}.json`), 'utf8')) as TreeManifest;
  // Written by whichever version made the checkpoint.
  const format: unknown = parsed.format;
  if (format !== 1) throw new Error(`manifest ${id} has unknown format ${String(format)}`);
  return parsed;
}

// ---- restoring (each step idempotent: running it twice, or after a crash mid-way, ends the same) ----

/** Gives every directory its owner's rwx, so git and the later steps can write into it. */
export function unlockDirectories(root: string, walk: TreeWalk): void {
  for (const [path, stat] of walk) {
    if (stat.type === 'dir' && (stat.perm & 0o700) !== 0o700) chmodSync(join(root, path), stat.perm | 0o700);
  }
}

/**
 * Removes what git would trip over or never remove: special files (FIFOs, sockets, devices), which
 * no checkpoint holds, and unindexable entries that the target does not hold as they are now.
 */
export function removeStrays(root: string, walk: TreeWalk, current: ManifestIndex, target: ManifestIndex): void {
  for (const [path, stat] of walk) {
    if (stat.type === 'other') removeIfPresent(join(root, path));
  }
  for (const [path, entry] of current.extras) {
    const wanted = target.extras.get(path);
    if (!wanted || !sameExtra(entry, wanted)) removeIfPresent(join(root, path));
  }
}

/**
 * Creates the target's directories that are missing and removes directories the target does not
 * have. Only removes a directory whose parent is a target directory (so never through a symlink)
 * and which is still a real directory (git may have put a file there).
 */
export function restoreDirectories(root: string, walk: TreeWalk, target: ManifestIndex): void {
  for (const path of [...target.dirs.keys()].sort(compareStrings)) {
    const absolute = path === '' ? root : join(root, path);
    ensureDirectory(absolute);
  }
  for (const [path, stat] of walk) {
    if (stat.type !== 'dir' || target.dirs.has(path)) continue;
    if (!target.dirs.has(parentOf(path))) continue;
    const absolute = join(root, path);
    if (tryLstat(absolute)?.isDirectory()) rmSync(absolute, { recursive: true, force: true });
  }
}

/**
 * Makes `absolute` a directory. Another process may be changing the same entry meanwhile (a
 * directory flipped to a symlink and back): what it made between the look and the mkdir is looked
 * at again, a few times, instead of failing the rollback with EEXIST.
 */
function ensureDirectory(absolute: string): void {
  for (let attempt = 0; ; attempt += 1) {
    const stat = tryLstat(absolute);
    if (stat?.isDirectory()) return;
    try {
      // unlink, not rm: rm reports a directory put here since the look as ERR_FS_EISDIR, which no
      // retry recognises; unlink says EISDIR.
      if (stat) unlinkSync(absolute);
      mkdirSync(absolute, { mode: 0o700 });
      return;
    } catch (error) {
      if (attempt >= ENTRY_RETRIES || !(hasErrorCode(error, 'EEXIST') || hasErrorCode(error, 'ENOENT') || hasErrorCode(error, 'EISDIR')))
        throw error;
    }
  }
}

/** How often a rollback step looks again at an entry another process keeps changing. */
const ENTRY_RETRIES = 16;

/** Writes the target's unindexable entries that are missing; `readBlobs` fetches file contents. */
export async function restoreExtras(
  root: string,
  target: ManifestIndex,
  readBlobs: (ids: readonly string[]) => Promise<Map<string, Buffer>>,
): Promise<void> {
  const missing = [...target.extras.values()].filter((entry) => !tryLstat(join(root, entry.path)));
  const blobs = await readBlobs([...new Set(missing.flatMap((entry) => (entry.type === 'file' ? [entry.blob] : [])))]);
  for (const entry of missing) {
    const absolute = join(root, entry.path);
    if (entry.type === 'symlink') {
      symlinkSync(entry.target, absolute);
      continue;
    }
    const content = blobs.get(entry.blob);
    if (!content) throw new Error(`blob ${entry.blob} for ${JSON.stringify(entry.path)} is missing from the store`);
    // A crash mid-write leaves a short file; the next snapshot sees its blob differ and removes it.
    writeNewFile(absolute, content);
  }
}

/**
 * Sets exact permission bits: on every file the target or the state before the rollback
 * (`current`) lists as unusual, on every unindexable file, and on every target directory
 * (deepest first, so a directory without x for its owner does not block its children).
 */
export function restoreModes(root: string, current: ManifestIndex, target: ManifestIndex): void {
  const files = new Set<string>([...current.modes.keys(), ...target.modes.keys()]);
  for (const path of files) {
    if (!ancestorsAreTargetDirs(path, target)) continue;
    const stat = tryLstat(join(root, path));
    if (!stat?.isFile()) continue;
    const wanted = target.modes.get(path) ?? gitPerm(stat.mode & 0o7777);
    if ((stat.mode & 0o7777) !== wanted) chmodSync(join(root, path), wanted);
  }
  for (const entry of target.extras.values()) {
    if (entry.type !== 'file') continue;
    const stat = tryLstat(join(root, entry.path));
    if (stat?.isFile() && (stat.mode & 0o7777) !== entry.perm) chmodSync(join(root, entry.path), entry.perm);
  }
  const dirs = [...target.dirs].sort((a, b) => compareStrings(b[0], a[0]));
  for (const [path, perm] of dirs) {
    const absolute = path === '' ? root : join(root, path);
    const stat = tryLstat(absolute);
    if (stat?.isDirectory() && (stat.mode & 0o7777) !== perm) chmodSync(absolute, perm);
  }
}

/** UTF-16 code-unit order: deterministic, and a directory sorts before everything under it. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One `lstat` of `absolute`, never following a symlink. */
export function statEntry(absolute: string): EntryStat {
  return entryStat(lstatSync(absolute));
}

/** An `lstat` as the walk keeps it. */
export function entryStat(stat: Stats): EntryStat {
  const type: EntryType = stat.isFile() ? 'file' : stat.isDirectory() ? 'dir' : stat.isSymbolicLink() ? 'symlink' : 'other';
  return { type, perm: stat.mode & 0o7777, size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino };
}

function sameExtra(a: ExtraEntry, b: ExtraEntry): boolean {
  if (a.type === 'file') return b.type === 'file' && a.blob === b.blob;
  return b.type === 'symlink' && a.target === b.target;
}

function ancestorsAreTargetDirs(path: string, target: ManifestIndex): boolean {
  for (let parent = parentOf(path); ; parent = parentOf(parent)) {
    if (!target.dirs.has(parent)) return false;
    if (parent === '') return true;
  }
}

function tryLstat(absolute: string): Stats | undefined {
  try {
    return lstatSync(absolute);
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT') || hasErrorCode(error, 'ENOTDIR')) return undefined;
    throw error;
  }
}

function removeIfPresent(absolute: string): void {
  const stat = tryLstat(absolute);
  if (!stat) return;
  if (stat.isDirectory()) rmSync(absolute, { recursive: true, force: true });
  else unlinkSync(absolute);
}

function writeNewFile(absolute: string, content: Buffer): void {
  const fd = openSync(absolute, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
}

function assertUtf8Names(names: readonly Buffer[], dir: string): void {
  for (const raw of names) {
    if (!Buffer.from(raw.toString('utf8'), 'utf8').equals(raw)) {
      throw new McpActorsError(
        ErrorCode.CHECKPOINT_FAILED,
        `cannot checkpoint ${JSON.stringify(dir || '.')}: it holds a file name that is not valid UTF-8 (${raw.toString('hex')} in hex); rename it`,
        { details: { dir, name: raw.toString('hex') } },
      );
    }
  }
}

export function walkError(path: string, error: unknown): McpActorsError {
  return new McpActorsError(
    ErrorCode.CHECKPOINT_FAILED,
    `cannot read ${JSON.stringify(path || '.')} while taking a snapshot: ${messageOf(error)}`,
    {
      cause: error,
      details: { path },
    },
  );
}
