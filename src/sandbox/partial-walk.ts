/**
 * A snapshot from hints instead of a walk: given the paths that may have changed since the last
 * snapshot (a file watcher's events), only those, their ancestors and — for a path that is or was a
 * directory — its whole subtree are `lstat`ed again; everything else keeps the last walk's entry.
 * Then the index update, the racy set and the manifest are computed from the re-read entries only,
 * so a snapshot's cost grows with the changes, not with the tree.
 *
 * A hint set that misses a change gives a wrong snapshot: the caller must hand every path that
 * changed, or no hints at all (a full walk).
 */
import { hasErrorCode } from '../errors/mcp-actors-error.js';
import { BeneathRoot } from './tree-blobs.js';
import { parentOf } from './tree-entries.js';
import {
  compareStrings,
  entryStat,
  isUnindexable,
  manifestItem,
  sameStat,
  statEntry,
  walkError,
  walkTree,
  type EntryStat,
  type ExtraEntry,
  type TreeManifest,
} from './tree-manifest.js';

/** What the last snapshot saw; the next one hands git only what differs from it. */
export interface WalkCache {
  readonly walk: ReadonlyMap<string, EntryStat>;
  /** Entries changed in the same clock tick as the walk: a later change could keep their stat, so always recheck them. */
  readonly racy: ReadonlySet<string>;
  readonly extraBlobs: ReadonlyMap<string, string>;
  /** The tree the index holds. */
  readonly tree: string;
}

/** What a snapshot hands git, given the last walk and this one. */
export interface IndexUpdate {
  /** Indexable files and symlinks that are new or whose stat changed (or was racy): read again (`storeBlobs`). */
  readonly changed: string[];
  /** Indexed paths that are gone or no longer indexable: removed from the index. */
  readonly removed: string[];
  /** Unindexable files to hash into the object store. */
  readonly extrasToHash: string[];
  /** Blob ids of unindexable files that did not change. */
  readonly extraBlobs: Map<string, string>;
}

/**
 * One file or symlink seen now, against its entry in the last walk: an indexable one goes to git
 * when its stat changed (or was racy); an unindexable file keeps its blob, or is hashed again.
 */
function classify(
  path: string,
  now: EntryStat,
  before: EntryStat | undefined,
  previous: { readonly racy: ReadonlySet<string>; readonly extraBlobs: ReadonlyMap<string, string> },
  out: { changed: string[]; extrasToHash: string[]; extraBlobs: Map<string, string> },
): void {
  const unchanged = before !== undefined && !previous.racy.has(path) && sameStat(before, now);
  if (!isUnindexable(path, now.type)) {
    if (!unchanged) out.changed.push(path);
  } else if (now.type === 'file') {
    const blob = unchanged ? previous.extraBlobs.get(path) : undefined;
    if (blob === undefined) out.extrasToHash.push(path);
    else out.extraBlobs.set(path, blob);
  }
}

/** Compares two walks by stat; an entry that was racy last time counts as changed. */
export function planIndexUpdate(
  previous: Pick<WalkCache, 'walk' | 'racy' | 'extraBlobs'>,
  walk: ReadonlyMap<string, EntryStat>,
): IndexUpdate {
  const changed: string[] = [];
  const extrasToHash: string[] = [];
  const extraBlobs = new Map<string, string>();
  for (const [path, now] of walk) {
    if (now.type !== 'file' && now.type !== 'symlink') continue;
    classify(path, now, previous.walk.get(path), previous, { changed, extrasToHash, extraBlobs });
  }
  const removed: string[] = [];
  for (const [path, before] of previous.walk) {
    if ((before.type !== 'file' && before.type !== 'symlink') || isUnindexable(path, before.type)) continue;
    const now = walk.get(path);
    if (now && (now.type === 'file' || now.type === 'symlink') && !isUnindexable(path, now.type)) continue;
    removed.push(path);
  }
  return { changed, removed, extrasToHash, extraBlobs };
}

/**
 * Entries stamped in the clock tick of the walk or later: on a filesystem with coarse timestamps a
 * second change in that tick can leave size, mtime and ctime as they were, so they are rechecked.
 */
export function racyPaths(walk: ReadonlyMap<string, EntryStat>, stamp: number): Set<string> {
  const racy = new Set<string>();
  for (const [path, entry] of walk) {
    if ((entry.type === 'file' || entry.type === 'symlink') && (entry.mtimeMs >= stamp || entry.ctimeMs >= stamp)) racy.add(path);
  }
  return racy;
}

/** More distinct hints than this and a full walk is cheaper, or the watcher missed things. */
export const MAX_CHANGED_PATHS = 4_096;

/** A walk with a parent → children index, so a subtree is found without scanning every path. */
export class WalkIndex {
  readonly entries: Map<string, EntryStat>;
  readonly #children = new Map<string, Set<string>>();

  /** Takes `walk` over: later updates change it in place. */
  constructor(walk: Map<string, EntryStat>) {
    this.entries = walk;
    for (const path of walk.keys()) if (path !== '') this.#addChild(path);
  }

  set(path: string, stat: EntryStat): void {
    if (path !== '' && !this.entries.has(path)) this.#addChild(path);
    this.entries.set(path, stat);
  }

  #addChild(path: string): void {
    const parent = parentOf(path);
    let children = this.#children.get(parent);
    if (!children) this.#children.set(parent, (children = new Set()));
    children.add(path);
  }

  /** Removes `path` and everything below it; calls `removed` with each entry first. */
  deleteTree(path: string, removed: (path: string, stat: EntryStat) => void): void {
    const children = this.#children.get(path);
    if (children) {
      for (const child of [...children]) this.deleteTree(child, removed);
      this.#children.delete(path);
    }
    const stat = this.entries.get(path);
    if (stat === undefined) return;
    removed(path, stat);
    this.entries.delete(path);
    if (path !== '') this.#children.get(parentOf(path))?.delete(path);
  }
}

/** Every re-read path with its entry in the last snapshot (`undefined`: it was absent). */
export type Touched = Map<string, EntryStat | undefined>;

/**
 * `path` relative to the root, `/`-separated, without `.` parts; undefined when it cannot be trusted
 * (absolute, `..`, NUL, or a name that was not valid UTF-8, which the watcher shows as U+FFFD).
 * The root is `''`.
 */
export function normalizeHint(path: string): string | undefined {
  if (path.startsWith('/') || path.includes('\0') || path.includes('\uFFFD')) return undefined;
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '..') return undefined;
    if (part !== '' && part !== '.') parts.push(part);
  }
  return parts.join('/');
}

/**
 * Updates `index` in place from `hints`; returns the re-read paths, or undefined — with `index`
 * untouched — when the hints cannot be trusted (see `normalizeHint`) or are more than `limit`.
 */
export async function applyHints(
  root: string,
  index: WalkIndex,
  hints: Iterable<string>,
  limit = MAX_CHANGED_PATHS,
): Promise<Touched | undefined> {
  // true: a hint (a directory gets its subtree re-read); false: only an ancestor of one.
  const toCheck = new Map<string, boolean>();
  let count = 0;
  for (const hint of hints) {
    const path = normalizeHint(hint);
    count += 1;
    if (path === undefined || count > limit) return undefined;
    if (path === '.git' || path.startsWith('.git/')) continue; // the worktree's own, never tracked
    toCheck.set(path, true);
    for (let parent = path; parent !== '';) {
      parent = parentOf(parent);
      if (toCheck.has(parent)) break;
      toCheck.set(parent, false);
    }
  }
  const touched: Touched = new Map();
  // Entries are read through descriptors beneath the root, as a full walk reads them.
  const tree = new BeneathRoot(root);
  try {
    await recheck(root, tree, index, toCheck, touched);
  } finally {
    tree.close();
  }
  return touched;
}

async function recheck(
  root: string,
  tree: BeneathRoot,
  index: WalkIndex,
  toCheck: ReadonlyMap<string, boolean>,
  touched: Touched,
): Promise<void> {
  const rescanned = new Set<string>();
  const forget = (path: string, stat: EntryStat): void => {
    if (!touched.has(path)) touched.set(path, stat);
  };
  // A parent sorts before everything below it, so each parent's new entry is known first.
  for (const path of [...toCheck.keys()].sort(compareStrings)) {
    if (isBelowAny(path, rescanned)) continue;
    const before = index.entries.get(path);
    const now = path === '' ? statEntry(root) : index.entries.get(parentOf(path))?.type === 'dir' ? tryStat(tree, path) : undefined;
    if (!touched.has(path)) touched.set(path, before);
    const replaced = before?.type === 'dir' && (now?.type !== 'dir' || now.ino !== before.ino);
    const rescan = now?.type === 'dir' && (toCheck.get(path) === true || before?.type !== 'dir' || now.ino !== before.ino);
    if (now === undefined || replaced || rescan) {
      rescanned.add(path);
      if (before !== undefined) index.deleteTree(path, forget);
      if (now === undefined) continue;
      const subtree = now.type === 'dir' ? await readSubtree(root, path, tree) : new Map([[path, now]]);
      for (const [entry, stat] of subtree) {
        if (!touched.has(entry)) touched.set(entry, undefined);
        index.set(entry, stat);
      }
    } else {
      index.set(path, now);
    }
  }
}

/** What a snapshot from hints hands git; the same shape as a full walk's plan. */
export interface PartialIndexUpdate {
  readonly changed: string[];
  readonly removed: string[];
  readonly extrasToHash: string[];
  /** The blob id of every unindexable file that did not change (all of them, not only the touched ones). */
  readonly extraBlobs: Map<string, string>;
}

/** `planIndexUpdate` restricted to the touched paths; every other entry is unchanged by assumption. */
export function planPartialUpdate(
  previous: { readonly racy: ReadonlySet<string>; readonly extraBlobs: ReadonlyMap<string, string> },
  walk: ReadonlyMap<string, EntryStat>,
  touched: Touched,
): PartialIndexUpdate {
  const changed: string[] = [];
  const removed: string[] = [];
  const extrasToHash: string[] = [];
  const extraBlobs = new Map(previous.extraBlobs);
  for (const [path, before] of touched) {
    extraBlobs.delete(path);
    const now = walk.get(path);
    if (now && (now.type === 'file' || now.type === 'symlink'))
      classify(path, now, before, previous, { changed, extrasToHash, extraBlobs });
    if (!before || (before.type !== 'file' && before.type !== 'symlink') || isUnindexable(path, before.type)) continue;
    if (now && (now.type === 'file' || now.type === 'symlink') && !isUnindexable(path, now.type)) continue;
    removed.push(path);
  }
  return { changed, removed, extrasToHash, extraBlobs };
}

/** The racy set after a partial snapshot: the old one without the re-read paths, plus the re-read entries stamped at `stamp` or later. */
export function partialRacy(
  previous: ReadonlySet<string>,
  walk: ReadonlyMap<string, EntryStat>,
  touched: Touched,
  stamp: number,
): Set<string> {
  const racy = new Set([...previous].filter((path) => !touched.has(path)));
  for (const path of touched.keys()) {
    const entry = walk.get(path);
    if (entry && (entry.type === 'file' || entry.type === 'symlink') && (entry.mtimeMs >= stamp || entry.ctimeMs >= stamp)) racy.add(path);
  }
  return racy;
}

/** A manifest kept as lookup tables between snapshots, so a partial snapshot updates only what it re-read. */
export class ManifestTables {
  readonly #dirs: Map<string, number>;
  readonly #modes: Map<string, number>;
  readonly #extras: Map<string, ExtraEntry>;
  #manifest: TreeManifest;

  constructor(manifest: TreeManifest) {
    this.#manifest = manifest;
    this.#dirs = new Map(manifest.dirs);
    this.#modes = new Map(manifest.modes);
    this.#extras = new Map(manifest.extras.map((entry) => [entry.path, entry]));
  }

  get manifest(): TreeManifest {
    return this.#manifest;
  }

  /** Re-derives the touched paths' items; arrays of categories nothing changed in are reused. */
  update(root: string, walk: ReadonlyMap<string, EntryStat>, touched: Touched, extraBlobs: ReadonlyMap<string, string>): TreeManifest {
    let [dirs, modes, extras] = [false, false, false];
    for (const path of touched.keys()) {
      const stat = walk.get(path);
      const item = stat && manifestItem(root, path, stat, extraBlobs);
      dirs = setOrDelete(this.#dirs, path, item?.kind === 'dir' ? item.perm : undefined) || dirs;
      modes = setOrDelete(this.#modes, path, item?.kind === 'mode' ? item.perm : undefined) || modes;
      const extra = item?.kind === 'extra' ? item.entry : undefined;
      const old = this.#extras.get(path);
      if (JSON.stringify(old) !== JSON.stringify(extra)) {
        extras = true;
        if (extra) this.#extras.set(path, extra);
        else this.#extras.delete(path);
      }
    }
    const sorted = <T>(items: Iterable<T>, key: (item: T) => string): T[] => [...items].sort((a, b) => compareStrings(key(a), key(b)));
    const previous = this.#manifest;
    this.#manifest = {
      format: 1,
      dirs: dirs ? sorted(this.#dirs, (item) => item[0]) : previous.dirs,
      modes: modes ? sorted(this.#modes, (item) => item[0]) : previous.modes,
      extras: extras ? sorted(this.#extras.values(), (item) => item.path) : previous.extras,
    };
    return this.#manifest;
  }
}

function setOrDelete(map: Map<string, number>, path: string, value: number | undefined): boolean {
  if (map.get(path) === value) return false;
  if (value === undefined) map.delete(path);
  else map.set(path, value);
  return true;
}

function isBelowAny(path: string, roots: ReadonlySet<string>): boolean {
  if (roots.size === 0) return false;
  for (let parent = path; parent !== '';) {
    parent = parentOf(parent);
    if (roots.has(parent)) return true;
  }
  return false;
}

function tryStat(tree: BeneathRoot, path: string): EntryStat | undefined {
  try {
    return entryStat(tree.lstat(path));
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT') || hasErrorCode(error, 'ENOTDIR')) return undefined;
    throw walkError(path, error);
  }
}

async function readSubtree(root: string, path: string, tree: BeneathRoot): Promise<Map<string, EntryStat>> {
  try {
    return await walkTree(root, path, tree);
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT') || hasErrorCode(error, 'ENOTDIR')) return new Map();
    throw error;
  }
}
