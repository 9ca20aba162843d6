/**
 * Which paths under a root changed since the last `take()`, from one non-recursive `fs.watch` per
 * directory (inotify on Linux). Node 20's `recursive: true` watcher cannot be used for this: it
 * reports no event for a chmod of a directory or of the root, nor for a symlink removed or
 * retargeted, and a removed `a` stops the watches of a sibling `ab`.
 *
 * When unsure, `take()` answers `undefined` ("walk everything"): after an `error` event, a null
 * file name, a directory it could not watch, more distinct paths than `maxPaths`, or more events
 * than `maxEvents` (kept below the kernel's queue size, whose overflow libuv drops silently).
 *
 * Past those limits it stops watching until the next `take()`, which watches the tree afresh: the
 * answer is "walk everything" by then anyway, and a process that goes on churning the tree (a
 * server swapping a directory and a link in a loop makes some 70,000 events a second) would
 * otherwise keep the host's event loop busy re-watching directories, over a core of CPU.
 */
import { lstatSync, readdirSync, watch, type FSWatcher } from 'node:fs';
import { basename, join } from 'node:path';
import { hasErrorCode } from '../errors/mcp-actors-error.js';
import { MAX_CHANGED_PATHS } from './partial-walk.js';

export interface TreeWatcherOptions {
  /** Called on every event (before it is recorded) with the path it names (relative, `/`-separated), or null when it names none. */
  readonly onEvent?: (path: string | null) => void;
  /** Distinct paths beyond which `take()` answers `undefined`. Default 4,096. */
  readonly maxPaths?: number;
  /** Events beyond which `take()` answers `undefined`. Default 8,192 (inotify queues 16,384). */
  readonly maxEvents?: number;
}

interface DirectoryWatch {
  readonly watcher: FSWatcher;
  readonly ino: number;
}

export class TreeWatcher {
  readonly #root: string;
  readonly #rootName: string;
  readonly #options: TreeWatcherOptions;
  readonly #watches = new Map<string, DirectoryWatch>();
  #changed = new Set<string>();
  #events = 0;
  #unknown = false;
  /** A directory could not be watched: nothing below it is ever reported, so every answer is "unknown". */
  #broken = false;
  /** Past the limits: nothing is watched until the next `take()`. */
  #paused = false;
  #closed = false;

  private constructor(root: string, options: TreeWatcherOptions) {
    this.#root = root;
    this.#rootName = basename(root);
    this.#options = options;
  }

  /**
   * Watches every directory under `root` (except a top-level `.git`); throws when the root itself
   * cannot be watched.
   *
   * @example
   * const watcher = TreeWatcher.open(root);
   * await store.checkpoint('after', { changedPaths: watcher.take() });
   */
  static open(root: string, options: TreeWatcherOptions = {}): TreeWatcher {
    const tree = new TreeWatcher(root, options);
    tree.#watchTree('', true);
    return tree;
  }

  /** The paths changed since the last call (relative, `/`-separated), or `undefined` when unknown. Starts a new set. */
  take(): string[] | undefined {
    const taken = this.#unknown || this.#broken ? undefined : [...this.#changed];
    this.#changed = new Set();
    this.#events = 0;
    this.#unknown = false;
    if (this.#paused && !this.#closed) {
      this.#paused = false;
      try {
        this.#watchTree('', true);
      } catch {
        this.#broken = true; // the root is gone or unwatchable: every answer is "unknown" from now on
      }
    }
    return taken;
  }

  /** Whether every change is being reported now (else whoever relies on the events must look for itself). */
  get watchesAll(): boolean {
    return !this.#paused && !this.#broken && !this.#closed;
  }

  close(): void {
    this.#closed = true;
    for (const { watcher } of this.#watches.values()) watcher.close();
    this.#watches.clear();
  }

  #onEvent(dir: string, name: string | null): void {
    if (this.#closed || this.#paused) return;
    const path = name === null ? null : dir === '' ? name : `${dir}/${name}`;
    this.#options.onEvent?.(path);
    this.#events += 1;
    if (path !== null) {
      this.#record(path);
      // An event about the watched directory itself (chmod, removal, move) carries its own name,
      // like a child of that name would: take it as both.
      if (name === (dir === '' ? this.#rootName : basename(dir))) this.#record(dir);
    }
    const limit = this.#options.maxEvents ?? 2 * MAX_CHANGED_PATHS;
    if (path === null || this.#events > limit || this.#changed.size > (this.#options.maxPaths ?? MAX_CHANGED_PATHS)) this.#pause();
  }

  /** Stops watching until the next `take()`; tells `onEvent` that events are lost from here (a null path). */
  #pause(): void {
    this.#unknown = true;
    this.#paused = true;
    this.#unwatchTree('');
    this.#options.onEvent?.(null);
  }

  /** Notes `path` and keeps the watches right: a new or replaced directory is watched, a gone one unwatched. */
  #record(path: string): void {
    this.#changed.add(path);
    if (path === '.git' || path.startsWith('.git/')) return;
    let ino: number | undefined;
    try {
      const stat = lstatSync(path === '' ? this.#root : join(this.#root, path));
      if (stat.isDirectory()) ino = stat.ino;
    } catch {
      // gone
    }
    const current = this.#watches.get(path);
    if (current !== undefined && current.ino === ino) return;
    if (current !== undefined || ino === undefined) this.#unwatchTree(path);
    if (ino !== undefined) this.#watchTree(path, false);
  }

  #watchTree(dir: string, isRoot: boolean): void {
    if (this.#closed || this.#watches.has(dir)) return;
    const absolute = dir === '' ? this.#root : join(this.#root, dir);
    let watcher: FSWatcher;
    let ino: number;
    try {
      ino = lstatSync(absolute).ino;
      watcher = watch(absolute, { persistent: false }, (_type, name) => this.#onEvent(dir, name));
    } catch (error) {
      if (isRoot) throw error;
      if (!hasErrorCode(error, 'ENOENT') && !hasErrorCode(error, 'ENOTDIR')) this.#broken = true;
      return;
    }
    watcher.on('error', () => {
      this.#unknown = true;
      this.#broken = true;
    });
    this.#watches.set(dir, { watcher, ino });
    let entries;
    try {
      entries = readdirSync(absolute, { withFileTypes: true });
    } catch {
      return; // removed meanwhile; its parent's event tells
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || (dir === '' && entry.name === '.git')) continue;
      this.#watchTree(dir === '' ? entry.name : `${dir}/${entry.name}`, false);
    }
  }

  #unwatchTree(dir: string): void {
    const prefix = `${dir}/`;
    for (const [path, { watcher }] of this.#watches) {
      if (path !== dir && !(dir === '' || path.startsWith(prefix))) continue;
      watcher.close();
      this.#watches.delete(path);
    }
  }
}
