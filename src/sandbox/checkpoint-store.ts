/**
 * Checkpoints of a sandbox directory in a private git repository, so that any tool call that may
 * write can be rolled back exactly: bytes, modes, empty directories, symlinks and entries git cannot
 * index (see `tree-manifest.ts`).
 *
 * Cost: each snapshot `lstat`s every entry once in Node (the only O(tree) part, about 4-5 µs an
 * entry here) and reads only the paths whose stat changed, through descriptors (`tree-blobs.ts`:
 * never through a link swapped in meanwhile); git's persistent private index and its cache tree
 * make `write-tree` grow with the changed files. Given `changedPaths`
 * (a watcher's events), a snapshot re-reads only those (see `partial-walk.ts`), so its whole cost
 * grows with the changes. A rollback is journaled
 * and every step is idempotent, so one interrupted by a crash finishes on the next `open()`.
 */
import { lstatSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, hasErrorCode, isMcpActorsError, messageOf } from '../errors/mcp-actors-error.js';
import { changeSet, parseRawDiff, type FileChange, type SnapshotSide } from './change-set.js';
import { updateTree, type TreeEntryChange } from './tree-writer.js';
import {
  STORE_FILE,
  STORE_FORMAT,
  checkStoreDir,
  createTempStore,
  exists,
  loadOrCreateStore,
  locationOf,
  resolveRoot,
  writeAtomically,
  type Checkpoint,
  type CheckpointSeed,
  type StoreFile,
  type StoredCheckpoint,
} from './checkpoint-store-dir.js';
import { ConfinedRollbackWorker, type RollbackConfinement } from './confined-rollback.js';
import { createGit, splitNul, type Git } from './git.js';
import { clearLeftoverGit } from './git-leftovers.js';
import {
  applyHints,
  ManifestTables,
  MAX_CHANGED_PATHS,
  partialRacy,
  planIndexUpdate,
  planPartialUpdate,
  racyPaths,
  WalkIndex,
  type WalkCache,
} from './partial-walk.js';
import {
  buildManifest,
  indexManifest,
  loadManifest,
  removeStrays,
  restoreDirectories,
  restoreExtras,
  restoreModes,
  saveManifest,
  unlockDirectories,
  walkTree,
  type EntryStat,
  type TreeManifest,
} from './tree-manifest.js';
import { storeBlobs, treeChanged } from './tree-blobs.js';
import { backoffDelay } from '../timing/backoff.js';

export type { FileChange } from './change-set.js';
export type { Checkpoint, CheckpointSeed } from './checkpoint-store-dir.js';
export { planIndexUpdate, racyPaths, type IndexUpdate, type WalkCache } from './partial-walk.js';

/** The steps of a rollback, in order; `onRollbackStep` is called after each. */
export const RollbackStep = {
  JOURNAL: 'journal',
  SNAPSHOT: 'snapshot',
  PREPARE: 'prepare',
  CHECKOUT: 'checkout',
  DIRECTORIES: 'directories',
  EXTRAS: 'extras',
  MODES: 'modes',
} as const;
export type RollbackStep = (typeof RollbackStep)[keyof typeof RollbackStep];

export interface CheckpointStoreOptions {
  /** The directory tracked (a sandbox). Everything under it is snapshotted except a top-level `.git`. */
  readonly root: string;
  /**
   * The private store: a git repository, an index, the manifests and the checkpoint list. Default: a
   * new `mkdtemp` directory in the OS temp dir. Never inside `root`; if it exists it must be empty
   * or a store of the same root, which is then reopened.
   */
  readonly storeDir?: string;
  /**
   * Run each rollback in bubblewrap, with only `root` and the store writable (see
   * `confined-rollback.ts`): a process that swaps a directory for a symlink while the rollback runs
   * cannot make it delete or write outside `root`. The runtime sets it wherever the confinement
   * probe succeeds. Steps then run in that process: `onRollbackStep` is not called.
   */
  readonly confineRollback?: RollbackConfinement;
  /**
   * For a new store: what git already knows of the tree (a `Sandbox`'s `checkpointSeed`), so the
   * first snapshot reads only the files that differ from it instead of the whole tree.
   */
  readonly seed?: CheckpointSeed | undefined;
  /** Test seam: called after each rollback step; a throw leaves the rollback half-done, as a crash would. */
  readonly onRollbackStep?: (step: RollbackStep) => void | Promise<void>;
  /** Test and metrics seam: called after each snapshot with how it read the tree. */
  readonly onSnapshot?: (info: SnapshotInfo) => void;
}

/** How a snapshot read the tree. */
export interface SnapshotInfo {
  /** `partial`: only the changed paths were read again; `full`: every entry was. */
  readonly walk: 'full' | 'partial';
  /** Entries `lstat`ed (for `partial`: the paths re-read, present or gone). */
  readonly entries: number;
}

/** Options of `checkpoint()` and `changesSince()`. */
export interface SnapshotOptions {
  /**
   * Every path (relative to the root, `/`-separated) that may have changed since this store's last
   * snapshot — checkpoint, `changesSince` or rollback — as a recursive file watcher reports them.
   * Only these, their ancestors and the subtrees of those that are or were directories are read
   * again; the rest is taken as it was. A set that misses a change gives a wrong snapshot, so pass
   * `undefined` whenever unsure (the watcher overflowed, failed or gave a null name): the whole
   * tree is walked. Also walked in full: the first snapshot, the one after a rollback or a failed
   * snapshot, and when a path is absolute, has a `..` part or there are more than 4,096.
   */
  readonly changedPaths?: Iterable<string> | undefined;
}

interface Snapshot {
  readonly tree: string;
  readonly manifest: TreeManifest;
  readonly manifestId: string;
  readonly walk: ReadonlyMap<string, EntryStat>;
}

const JOURNAL_FILE = 'rollback-in-progress';
/**
 * How often a rollback that met a concurrent change of the tree is run again, with a growing pause
 * between tries (5, 10, 20… ms, at most 160; about 2.5 s in all, only while the change goes on): a
 * process that flips a directory every few tens of microseconds beat 3 immediate tries once in 300
 * rollbacks, and 8 tries (0.6 s) twice in 300 (CI, as uid 65534).
 */
const ROLLBACK_RETRIES = 20;
/** The pause before try `attempt + 1`: the one backoff (`timing/backoff.ts`), without jitter. */
const ROLLBACK_BACKOFF = { initialMs: 5, factor: 2, maxMs: 160, jitter: 0 } as const;
/** How often a snapshot that met a concurrent change of the tree is taken again. */
const SNAPSHOT_RETRIES = 3;
// EROFS: in a confined rollback, a path that a swapped-in symlink led out of the tree.
const CONCURRENT_CHANGE_CODES = ['EEXIST', 'ENOENT', 'ENOTEMPTY', 'ENOTDIR', 'EISDIR', 'EROFS'];

/** What git says when an entry changed between our walk and its look (a directory now a link, a link gone). */
const GIT_SAW_A_CHANGE =
  /Unable to process path|unable to create symlink|is a directory - add files inside|readlink\(|File exists|No such file or directory|Not a directory|Read-only file system/;

/**
 * A snapshot or rollback failure caused by the tree changing under it: an fs error code (here or as
 * a cause), or git's report of an entry that changed between the walk and git's own look.
 */
function isConcurrentChange(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at !== undefined && at !== null && depth < 4; depth += 1) {
    if (CONCURRENT_CHANGE_CODES.some((code) => hasErrorCode(at, code))) return true;
    if (at instanceof Error && /^git /.test(at.message) && GIT_SAW_A_CHANGE.test(at.message)) return true;
    at = (at as { cause?: unknown }).cause;
  }
  return false;
}
/** git's mode for "no such entry" in a raw diff. */
const ABSENT = '000000';
/** The object id `update-index --index-info` reads, with mode 0, as "remove this path". */
const NO_OBJECT = '0'.repeat(40);

/** The last snapshot, for the next one; `index` and `tables` are updated in place by a partial one. */
interface SnapshotCache extends WalkCache {
  readonly index: WalkIndex;
  readonly tables: ManifestTables;
  /** False when the tree may differ from `index` in paths no watcher reported (after a rollback). */
  readonly hintable: boolean;
}

/**
 * Snapshots of a directory that can be restored exactly.
 *
 * @example
 * const store = await CheckpointStore.open({ root: sandboxDir });
 * const before = await store.checkpoint('before write_file');
 * await callTool();
 * console.log(await store.changesSince(before.id));
 * await store.rollback(before.id);
 * await store.dispose();
 */
export class CheckpointStore {
  /** The tracked directory, resolved through symlinks. */
  readonly root: string;
  readonly storeDir: string;
  readonly #git: Git;
  readonly #onRollbackStep: CheckpointStoreOptions['onRollbackStep'];
  readonly #onSnapshot: CheckpointStoreOptions['onSnapshot'];
  readonly #confinement: RollbackConfinement | undefined;
  #worker: ConfinedRollbackWorker | undefined;
  readonly #manifests = new Map<string, TreeManifest>();
  #checkpoints: StoredCheckpoint[];
  #nextNumber: number;
  #cache: WalkCache | SnapshotCache | undefined;
  /** The tree the private index holds, when known: partial snapshots leave it behind (`#syncIndex`). */
  #indexTree: string | undefined;
  #pendingRollback = false;
  #disposed = false;
  #disposal: Promise<void> | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(root: string, storeDir: string, file: StoreFile, options: CheckpointStoreOptions) {
    this.root = root;
    this.storeDir = storeDir;
    this.#git = createGit(locationOf(root, storeDir));
    this.#onRollbackStep = options.onRollbackStep;
    this.#onSnapshot = options.onSnapshot;
    this.#confinement = options.confineRollback;
    this.#checkpoints = [...file.checkpoints];
    this.#nextNumber = file.nextNumber;
  }

  /**
   * Opens a store for `root`, creating it or reopening an existing `storeDir`; finishes a rollback
   * that a crash interrupted.
   */
  static async open(options: CheckpointStoreOptions): Promise<CheckpointStore> {
    const root = await resolveRoot(options.root);
    const created = options.storeDir === undefined;
    const storeDir = options.storeDir === undefined ? await createTempStore(root) : await checkStoreDir(root, resolve(options.storeDir));
    let file: StoreFile;
    try {
      file = await loadOrCreateStore(root, storeDir, options.seed);
    } catch (error) {
      if (created) await rm(storeDir, { recursive: true, force: true });
      throw error;
    }
    const store = new CheckpointStore(root, storeDir, file, options);
    // Nobody else uses a private store: a git a dead host left running (and the index.lock it
    // holds) would block every command, so it is waited for or killed, and the lock cleared.
    if (created) await rm(join(storeDir, 'index.lock'), { force: true });
    else await clearLeftoverGit(storeDir);
    store.#pendingRollback = await exists(join(storeDir, JOURNAL_FILE));
    if (store.#pendingRollback) await store.recover();
    return store;
  }

  /** Takes a snapshot of everything under `root` and records it; `changedPaths` makes it cheap (see `SnapshotOptions`). */
  checkpoint(label?: string, options: SnapshotOptions = {}): Promise<Checkpoint> {
    return this.#exclusive('checkpoint', async () => {
      await this.#finishPendingRollback();
      const snapshot = await this.#snapshot(options.changedPaths);
      const stored: StoredCheckpoint = {
        id: `ckpt-${this.#nextNumber}`,
        createdAt: Date.now(),
        ...(label === undefined ? {} : { label }),
        tree: snapshot.tree,
        manifest: snapshot.manifestId,
      };
      await this.#saveStore([...this.#checkpoints, stored], this.#nextNumber + 1);
      return publicCheckpoint(stored);
    });
  }

  /** Restores `root` exactly as it was at checkpoint `id`; later checkpoints are kept. */
  rollback(id: string): Promise<void> {
    return this.#exclusive('rollback', async () => {
      await this.#restore(this.#find(id));
    });
  }

  /** A rollback to `target`, here or confined; one that met a concurrent change is run again. */
  async #restore(target: StoredCheckpoint): Promise<void> {
    // The confined process opens this store, which finishes the journaled rollback with the retries below.
    if (this.#confinement) return this.#rollbackConfined(target, this.#confinement);
    // A process outside the call (an attacker flipping a directory, an editor saving) can change
    // an entry between a step's look and its write; the journal makes a rollback restartable, so
    // it is run again from the start, a few times, before the failure is reported.
    for (let attempt = 0; ; attempt += 1) {
      try {
        await this.#rollbackTo(target);
        return;
      } catch (error) {
        if (attempt >= ROLLBACK_RETRIES || !isConcurrentChange(error)) throw error;
        await new Promise<void>((resolve) => setTimeout(resolve, backoffDelay(ROLLBACK_BACKOFF, attempt, 0)));
      }
    }
  }

  async #rollbackConfined(target: StoredCheckpoint, confinement: RollbackConfinement): Promise<void> {
    await this.#writeJournal(target);
    // The confined process rewrites the tree and the index: nothing this one knew of them holds.
    this.#cache = undefined;
    this.#indexTree = undefined;
    this.#worker ??= new ConfinedRollbackWorker(confinement, this.root, this.storeDir);
    const result = await this.#worker.finish();
    if (!result.ok) {
      throw new McpActorsError(ErrorCode.CHECKPOINT_FAILED, `${result.message} (the rollback ran confined, in bubblewrap)`, {
        details: { ...result.details, id: target.id, confined: true, codes: result.codes },
      });
    }
    this.#pendingRollback = false;
  }

  async #writeJournal(target: StoredCheckpoint): Promise<void> {
    await writeAtomically(join(this.storeDir, JOURNAL_FILE), JSON.stringify({ target: target.id, startedAt: Date.now() }));
    this.#pendingRollback = true;
  }

  /** Finishes a rollback that was interrupted (by a crash or a failed step); false if none was. */
  recover(): Promise<boolean> {
    return this.#exclusive('recover', () => this.#finishPendingRollback());
  }

  /** The checkpoints, oldest first. */
  list(): Checkpoint[] {
    return this.#checkpoints.map(publicCheckpoint);
  }

  /** The changes from checkpoint `fromId` to checkpoint `toId`. */
  changesBetween(fromId: string, toId: string): Promise<FileChange[]> {
    return this.#exclusive('changesBetween', async () => {
      const [from, to] = [this.#find(fromId), this.#find(toId)];
      return changeSet(this.#git, await this.#side(from.tree, from.manifest), await this.#side(to.tree, to.manifest));
    });
  }

  /** The changes from checkpoint `id` to the tree as it is now (snapshotted, not recorded). */
  changesSince(id: string, options: SnapshotOptions = {}): Promise<FileChange[]> {
    return this.#exclusive('changesSince', async () => {
      const from = this.#find(id);
      await this.#finishPendingRollback();
      const now = await this.#snapshot(options.changedPaths);
      return changeSet(this.#git, await this.#side(from.tree, from.manifest), { tree: now.tree, manifest: indexManifest(now.manifest) });
    });
  }

  /** Removes the private store. The tracked directory is left as it is. A second call does nothing. */
  dispose(): Promise<void> {
    this.#disposal ??= this.#exclusive('dispose', async () => {
      this.#disposed = true;
      this.#worker?.close();
      this.#checkpoints = [];
      await rm(this.storeDir, { recursive: true, force: true });
    });
    return this.#disposal;
  }

  // ---- snapshot ----

  /** A snapshot; one that met a concurrent change of the tree is taken again (walking everything). */
  async #snapshot(changedPaths?: Iterable<string>): Promise<Snapshot> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.#snapshotOnce(attempt === 0 ? changedPaths : undefined);
      } catch (error) {
        if (attempt >= SNAPSHOT_RETRIES || !isConcurrentChange(error)) throw error;
      }
    }
  }

  async #snapshotOnce(changedPaths?: Iterable<string>): Promise<Snapshot> {
    const cache = this.#cache;
    const hintable = changedPaths !== undefined && cache !== undefined && 'hintable' in cache && cache.hintable;
    try {
      return (hintable ? await this.#partialSnapshot(cache, changedPaths) : undefined) ?? (await this.#fullSnapshot());
    } catch (error) {
      // The caller's changed paths are spent: the next snapshot walks everything. A partial one may
      // have left the walk index half updated, so that one starts again from git's stat cache.
      this.#cache = hintable ? undefined : cache && { ...cache, hintable: false };
      throw error;
    }
  }

  async #partialSnapshot(cache: SnapshotCache, changedPaths: Iterable<string>): Promise<Snapshot | undefined> {
    const stamp = await this.#clockTick();
    // Entries that were racy are read again: their stat may not show a change.
    const touched = await applyHints(this.root, cache.index, [...changedPaths, ...cache.racy], MAX_CHANGED_PATHS + cache.racy.size);
    if (touched === undefined) return undefined;
    const walk = cache.index.entries;
    const { changed, removed, extrasToHash, extraBlobs } = planPartialUpdate(cache, walk, touched);
    const tree = await this.#updateTreeOnly(changed, removed, cache.tree);
    for (const [path, blob] of await this.#hashFiles(extrasToHash)) extraBlobs.set(path, blob);
    const manifest = cache.tables.update(this.root, walk, touched, extraBlobs);
    const manifestId = await saveManifest(join(this.storeDir, 'manifests'), manifest);
    this.#manifests.set(manifestId, manifest);
    this.#cache = { ...cache, walk, racy: partialRacy(cache.racy, walk, touched, stamp), extraBlobs, tree };
    this.#onSnapshot?.({ walk: 'partial', entries: touched.size });
    return { tree, manifest, manifestId, walk };
  }

  /**
   * A partial snapshot's tree: `base` with the changed paths (read through `storeBlobs`, never by
   * path) and without the removed ones, written by `updateTree` — no index is read or rewritten, so
   * the cost grows with the changes, not with the tree. The index falls behind (`#indexTree`); the
   * next full snapshot brings it up to date first.
   */
  async #updateTreeOnly(changed: readonly string[], removed: readonly string[], base: string): Promise<string> {
    if (removed.length === 0 && changed.length === 0) return base;
    const blobs = await storeBlobs(this.#git, this.root, changed, this.storeDir);
    const changes = new Map<string, TreeEntryChange>(removed.map((path) => [path, undefined]));
    for (const path of changed) changes.set(path, blobs.get(path));
    return updateTree(this.#git, join(this.storeDir, 'git', 'objects'), base, changes);
  }

  /** Brings the index from the tree it holds to `tree`, path by path (only what differs). */
  async #syncIndex(tree: string): Promise<void> {
    if (this.#indexTree === undefined || this.#indexTree === tree) return;
    const raw = parseRawDiff(await this.#git(['diff-tree', '-r', '-z', '--raw', '--no-renames', '--no-abbrev', this.#indexTree, tree]));
    const records = raw.map((entry) =>
      entry.dstMode === ABSENT ? `0 ${NO_OBJECT}\t${entry.path}\0` : `${entry.dstMode} ${entry.dstBlob}\t${entry.path}\0`,
    );
    if (records.length > 0) await this.#git(['update-index', '-z', '--index-info'], { input: records.join('') });
    this.#indexTree = tree;
  }

  /** Index records for `changed` (read through `storeBlobs`, never by path) and `removed`; removals first. */
  async #updateIndex(changed: readonly string[], removed: readonly string[], unchangedTree: string | undefined): Promise<string> {
    if (unchangedTree) await this.#syncIndex(unchangedTree);
    if (removed.length === 0 && changed.length === 0 && unchangedTree) return unchangedTree;
    const blobs = await storeBlobs(this.#git, this.root, changed, this.storeDir);
    const gone = [...removed, ...changed.filter((path) => blobs.get(path) === undefined)];
    const records = [
      ...gone.map((path) => `0 ${NO_OBJECT}\t${path}\0`),
      ...changed.flatMap((path) => {
        const blob = blobs.get(path);
        return blob === undefined ? [] : [`${blob.mode} ${blob.oid}\t${path}\0`];
      }),
    ];
    if (records.length > 0) await this.#git(['update-index', '-z', '--index-info'], { input: records.join('') });
    this.#indexTree = (await this.#git(['write-tree'])).toString('utf8').trim();
    return this.#indexTree;
  }

  async #fullSnapshot(): Promise<Snapshot> {
    const stamp = await this.#clockTick();
    const walk = await walkTree(this.root);
    // The last walk is a cache of the index only while the index can be brought to its tree.
    const cached = this.#cache !== undefined && this.#indexTree !== undefined ? this.#cache : undefined;
    const previous = cached ?? (await this.#indexedPaths(walk));
    const { changed, removed, extrasToHash, extraBlobs } = planIndexUpdate(previous, walk);
    const tree = await this.#updateIndex(changed, removed, cached?.tree);
    for (const [path, blob] of await this.#hashFiles(extrasToHash)) extraBlobs.set(path, blob);
    const manifest = buildManifest(this.root, walk, extraBlobs);
    const manifestId = await saveManifest(join(this.storeDir, 'manifests'), manifest);
    this.#manifests.set(manifestId, manifest);
    const index = new WalkIndex(walk);
    this.#cache = { walk, racy: racyPaths(walk, stamp), extraBlobs, tree, index, tables: new ManifestTables(manifest), hintable: true };
    this.#onSnapshot?.({ walk: 'full', entries: walk.size });
    return { tree, manifest, manifestId, walk };
  }

  /**
   * The kernel's file-timestamp clock, read by touching a file in the store. Kernels stamp files
   * with a coarse clock (a jiffy, 1-10 ms), so an entry stamped in this tick or later may change
   * again without its stat changing. Since Linux 6.13 ("multigrain" timestamps) a file whose times
   * were read since its last change gets a fine-grained stamp: hence the second touch, which reads
   * the clock as precisely as this kernel stamps files that the walk has `lstat`ed.
   */
  async #clockTick(): Promise<number> {
    const file = join(this.storeDir, 'clock');
    await writeFile(file, '');
    lstatSync(file);
    await writeFile(file, '');
    const probe = lstatSync(file);
    return Math.min(probe.mtimeMs, probe.ctimeMs);
  }

  /**
   * After `open()` (or a failed snapshot): nothing is known, so git's stat cache says which indexed
   * paths are clean; those keep the stat `walk` saw (taken first, so a later change is seen next time).
   */
  async #indexedPaths(walk: ReadonlyMap<string, EntryStat>): Promise<WalkCache> {
    await this.#git(['update-index', '-q', '--refresh']);
    const dirty = new Set(splitNul(await this.#git(['diff-files', '--name-only', '-z'])));
    const paths = splitNul(await this.#git(['ls-files', '-z']));
    const unknown: EntryStat = { type: 'file', perm: -1, size: -1, mtimeMs: -1, ctimeMs: -1, ino: -1 };
    const known = (path: string): EntryStat => (dirty.has(path) ? undefined : walk.get(path)) ?? unknown;
    return { walk: new Map(paths.map((path) => [path, known(path)])), racy: new Set(), extraBlobs: new Map(), tree: '' };
  }

  /** Blobs of unindexable files (see `isUnindexable`), read like the indexed ones. */
  async #hashFiles(paths: readonly string[]): Promise<Map<string, string>> {
    const blobs = new Map<string, string>();
    for (const [path, blob] of await storeBlobs(this.#git, this.root, paths, this.storeDir)) {
      if (blob?.mode === '120000' || blob === undefined) throw treeChanged(path, blob ? 'EEXIST' : 'ENOENT', 'no longer a regular file');
      blobs.set(path, blob.oid);
    }
    return blobs;
  }

  // ---- rollback ----

  async #rollbackTo(target: StoredCheckpoint): Promise<void> {
    let step = 'start';
    const done = async (finished: RollbackStep): Promise<void> => {
      step = finished;
      await this.#onRollbackStep?.(finished);
    };
    try {
      await this.#writeJournal(target);
      await done(RollbackStep.JOURNAL);
      const now = await this.#snapshot();
      await done(RollbackStep.SNAPSHOT);
      const current = indexManifest(now.manifest);
      const wanted = indexManifest(await this.#manifest(target.manifest));
      unlockDirectories(this.root, now.walk);
      removeStrays(this.root, now.walk, current, wanted);
      await done(RollbackStep.PREPARE);
      // Under umask 022 git writes exactly 644 and 755; the manifest's unusual modes come after.
      // The index's stat data first (index records written by --index-info have none): with it,
      // git checks out only what differs, not every file. Refreshing reads a file only to compare.
      await this.#git(['update-index', '-q', '--refresh']);
      await this.#git(['read-tree', '--reset', '-u', target.tree], { umask: 0o022 });
      await done(RollbackStep.CHECKOUT);
      restoreDirectories(this.root, now.walk, wanted);
      await done(RollbackStep.DIRECTORIES);
      await restoreExtras(this.root, wanted, (ids) => this.#readBlobs(ids));
      await done(RollbackStep.EXTRAS);
      restoreModes(this.root, current, wanted);
      await done(RollbackStep.MODES);
      await rm(join(this.storeDir, JOURNAL_FILE), { force: true });
      this.#pendingRollback = false;
      // The index now holds the target; the old walk stays as the cache, so everything git or the
      // steps above rewrote has a different stat and is handed to git (which finds it clean). No
      // watcher is told what the steps rewrote, so the next snapshot walks everything.
      this.#indexTree = target.tree;
      if (this.#cache) this.#cache = { ...this.#cache, tree: target.tree, hintable: false };
    } catch (error) {
      this.#cache = undefined;
      this.#indexTree = undefined;
      throw new McpActorsError(
        ErrorCode.CHECKPOINT_FAILED,
        `rollback to ${target.id} failed after step "${step}": ${messageOf(error)}; the journal is kept, so recover() or the next open() of this store finishes it`,
        { cause: error, details: { id: target.id, step } },
      );
    }
  }

  async #finishPendingRollback(): Promise<boolean> {
    if (!this.#pendingRollback) return false;
    const journalFile = join(this.storeDir, JOURNAL_FILE);
    let journal: { target?: unknown };
    try {
      journal = JSON.parse(await readFile(journalFile, 'utf8')) as { target?: unknown };
    } catch (error) {
      if (!hasErrorCode(error, 'ENOENT')) throw error;
      this.#pendingRollback = false;
      return false;
    }
    await rm(join(this.storeDir, 'index.lock'), { force: true });
    await this.#restore(this.#find(String(journal.target)));
    return true;
  }

  async #readBlobs(ids: readonly string[]): Promise<Map<string, Buffer>> {
    const blobs = new Map<string, Buffer>();
    if (ids.length === 0) return blobs;
    const output = await this.#git(['cat-file', '--batch'], { input: `${ids.join('\n')}\n` });
    let offset = 0;
    for (const id of ids) {
      const newline = output.indexOf(0x0a, offset);
      const [, type, size] = output.subarray(offset, newline).toString('latin1').split(' ');
      if (type !== 'blob' || size === undefined) throw new Error(`object ${id} is not a blob in the store`);
      const start = newline + 1;
      blobs.set(id, output.subarray(start, start + Number(size)));
      offset = start + Number(size) + 1;
    }
    return blobs;
  }

  // ---- bookkeeping ----

  #find(id: string): StoredCheckpoint {
    const found = this.#checkpoints.find((checkpoint) => checkpoint.id === id);
    if (found) return found;
    const count = this.#checkpoints.length;
    const range =
      count === 0
        ? ''
        : count === 1
          ? `: ${this.#checkpoints[0]?.id}`
          : `: ${this.#checkpoints[0]?.id} … ${this.#checkpoints[count - 1]?.id}`;
    throw new McpActorsError(
      ErrorCode.CHECKPOINT_NOT_FOUND,
      `no checkpoint ${JSON.stringify(id)} in this store; it holds ${count} checkpoint${count === 1 ? '' : 's'}${range} (an actor's checkpoints() lists them)`,
      { details: { id, count } },
    );
  }

  async #side(tree: string, manifestId: string): Promise<SnapshotSide> {
    return { tree, manifest: indexManifest(await this.#manifest(manifestId)) };
  }

  async #manifest(id: string): Promise<TreeManifest> {
    const cached = this.#manifests.get(id);
    if (cached) return cached;
    const manifest = await loadManifest(join(this.storeDir, 'manifests'), id);
    this.#manifests.set(id, manifest);
    return manifest;
  }

  async #saveStore(checkpoints: StoredCheckpoint[], nextNumber: number): Promise<void> {
    const file: StoreFile = { format: STORE_FORMAT, root: this.root, nextNumber, checkpoints };
    await writeAtomically(join(this.storeDir, STORE_FILE), JSON.stringify(file));
    this.#checkpoints = checkpoints;
    this.#nextNumber = nextNumber;
  }

  /** Runs one operation at a time; wraps stray errors as CHECKPOINT_FAILED naming the operation. */
  #exclusive<T>(operation: string, run: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(async () => {
      if (this.#disposed) {
        throw new McpActorsError(ErrorCode.CHECKPOINT_FAILED, `${operation}() on a disposed checkpoint store; open a new one`);
      }
      try {
        return await run();
      } catch (error) {
        if (isMcpActorsError(error)) throw error;
        throw new McpActorsError(ErrorCode.CHECKPOINT_FAILED, `${operation} failed: ${messageOf(error)}`, { cause: error });
      }
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }
}

function publicCheckpoint({ manifest: _manifest, ...checkpoint }: StoredCheckpoint): Checkpoint {
  return { ...checkpoint };
}
