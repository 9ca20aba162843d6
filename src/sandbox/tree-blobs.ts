/**
 * Reads a tree's files into git blobs without following a symlink on the way. git's own readers
 * (`update-index --add`, `hash-object <path>`) open each file by its path: between the walk's look
 * at `d` (a directory) and git's open of `d/f`, a process that goes on running in the tree (a
 * confined server, after its call) can swap `d` for a link to a host folder the server cannot
 * see (`~/.ssh`), and git then stores that folder's `f` in the checkpoint. A rollback to it writes
 * the file into the sandbox, where the server reads it. Measured: `git update-index --add d/f`
 * against a process exchanging `d` and such a link stored the other folder's file in 217 of 400
 * runs.
 *
 * So each file is opened here one component at a time, each directory through the previous one's
 * descriptor (`/proc/self/fd/<dir>/<name>`, `O_NOFOLLOW`): a component that is no longer a directory
 * fails the open, and the snapshot counts it as a concurrent change and is taken again. git then
 * reads the file through the descriptor (`/proc/<pid>/fd/<n>`), never by its path. A symlink's
 * target is read through its directory's descriptor too. Linux only, as the sandbox is.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { join } from 'node:path';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, hasErrorCode, messageOf } from '../errors/mcp-actors-error.js';
import type { Git } from './git.js';
import { baseOf, gitPerm, parentOf } from './tree-entries.js';

/** What a path of the tree holds now, as git records it. */
export type TreeBlob = { readonly mode: '100644' | '100755' | '120000'; readonly oid: string };

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;
/** How many files one `git hash-object` reads (each holds a descriptor until it has). */
const CHUNK = 200;
const MAX_OPEN_DIRS = 64;

/** An entry changed between the walk and this read: the snapshot is taken again. */
export function treeChanged(path: string, code: string, what: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${path}: ${what} (the tree changed while it was read)`), { code, path });
}

/**
 * Descriptors of the tree's directories, each opened through its parent's without following a
 * link; closed together at the end of a read. The walk lists and stats through them too, so a
 * directory swapped for a link never shows what lies behind it, not even its names.
 */
export class BeneathRoot {
  readonly #dirs = new Map<string, number>();

  constructor(root: string) {
    const fd = openSync(root, O_RDONLY | O_DIRECTORY);
    this.#dirs.set('', fd);
    // Without /proc every path would look gone: say so rather than record an empty tree.
    try {
      closeSync(openSync(`/proc/self/fd/${fd}`, O_RDONLY | O_DIRECTORY));
    } catch (error) {
      this.close();
      throw new McpActorsError(
        ErrorCode.CHECKPOINT_FAILED,
        `cannot read ${root} through /proc/self/fd (${messageOf(error)}): checkpoints need Linux with /proc mounted`,
        {
          cause: error,
        },
      );
    }
  }

  /** The descriptor of directory `rel` (`''` is the root); ENOENT when it is gone. */
  dir(rel: string): number {
    const known = this.#dirs.get(rel);
    if (known !== undefined) return known;
    // Paths come in walk order, so few directories are open at once; a wide tree must not use up
    // the process's descriptors (a soft limit of 1,024 is common).
    if (this.#dirs.size > MAX_OPEN_DIRS) this.#closeAllButRoot();
    const parent = this.dir(parentOf(rel));
    let fd: number;
    try {
      fd = openSync(`/proc/self/fd/${parent}/${baseOf(rel)}`, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (error) {
      // ENOTDIR: a link (or a file) where the walk saw a directory; ELOOP on some kernels.
      if (hasErrorCode(error, 'ENOTDIR') || hasErrorCode(error, 'ELOOP')) throw treeChanged(rel, 'ENOTDIR', 'no longer a directory');
      throw error;
    }
    this.#dirs.set(rel, fd);
    return fd;
  }

  /** The names in directory `rel` (`''` is the root); ENOENT when it is gone, ENOTDIR when it is no longer a directory. */
  list(rel: string): string[];
  list(rel: string, encoding: 'buffer'): Buffer[];
  list(rel: string, encoding?: 'buffer'): string[] | Buffer[] {
    const at = `/proc/self/fd/${this.dir(rel)}`;
    return encoding === 'buffer' ? readdirSync(at, { encoding: 'buffer' }) : readdirSync(at);
  }

  /** `lstat` of entry `rel` (not the root), its directory reached without following a link. */
  lstat(rel: string): Stats {
    return lstatSync(`/proc/self/fd/${this.dir(parentOf(rel))}/${baseOf(rel)}`);
  }

  close(): void {
    for (const fd of this.#dirs.values()) closeSync(fd);
    this.#dirs.clear();
  }

  #closeAllButRoot(): void {
    for (const [rel, fd] of this.#dirs) {
      if (rel === '') continue;
      closeSync(fd);
      this.#dirs.delete(rel);
    }
  }
}

/**
 * Stores the files and symlinks at `paths` (relative to `root`) as blobs and returns what each
 * holds; a path that is gone maps to `undefined`. Throws an error with an fs code that the store
 * counts as a concurrent change when an entry is not what it was (a directory now a link).
 *
 * @example
 * const blobs = await storeBlobs(git, root, ['src/a.ts', 'link'], scratchDir);
 * blobs.get('src/a.ts'); // { mode: '100644', oid: '…' }
 */
export async function storeBlobs(
  git: Git,
  root: string,
  paths: readonly string[],
  scratchDir: string,
): Promise<Map<string, TreeBlob | undefined>> {
  const found = new Map<string, TreeBlob | undefined>();
  if (paths.length === 0) return found;
  const scratch = mkdtempSync(join(scratchDir, 'links-'));
  let tree: BeneathRoot | undefined;
  try {
    tree = new BeneathRoot(root);
    for (let start = 0; start < paths.length; start += CHUNK) {
      const opened: { path: string; mode: TreeBlob['mode']; source: string; fd?: number }[] = [];
      try {
        for (const path of paths.slice(start, start + CHUNK)) {
          const entry = openEntry(tree, path, join(scratch, String(opened.length)));
          if (entry === undefined) found.set(path, undefined);
          else opened.push({ path, ...entry });
        }
        if (opened.length === 0) continue;
        const out = await git(['hash-object', '-w', '--no-filters', '--stdin-paths'], {
          input: opened.map((entry) => `${entry.source}\n`).join(''),
        });
        const oids = out.toString('utf8').trim().split('\n');
        opened.forEach((entry, i) => found.set(entry.path, { mode: entry.mode, oid: oids[i] ?? '' }));
      } finally {
        for (const entry of opened) if (entry.fd !== undefined) closeSync(entry.fd);
      }
    }
  } finally {
    tree?.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  return found;
}

/**
 * The target of the symlink at `path` beneath `root`, read through its directory's descriptor (for
 * the manifest's unindexable links). Throws an fs code the store counts as a concurrent change when
 * a directory on the way, or the link itself, is no longer what the walk saw.
 */
export function readLinkBeneath(root: string, path: string): string {
  const tree = new BeneathRoot(root);
  try {
    const at = `/proc/self/fd/${tree.dir(parentOf(path))}/${baseOf(path)}`;
    try {
      return readlinkSync(at);
    } catch (error) {
      if (hasErrorCode(error, 'EINVAL')) throw treeChanged(path, 'EEXIST', 'no longer a symlink');
      throw error;
    }
  } finally {
    tree.close();
  }
}

/** Opens one entry for git to read: a file through its descriptor, a link's target written to `linkFile`. */
function openEntry(tree: BeneathRoot, path: string, linkFile: string): { mode: TreeBlob['mode']; source: string; fd?: number } | undefined {
  let dir: number;
  try {
    dir = tree.dir(parentOf(path));
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return undefined;
    throw error;
  }
  const at = `/proc/self/fd/${dir}/${baseOf(path)}`;
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO put there meanwhile must not hang the open.
    fd = openSync(at, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return undefined;
    if (!hasErrorCode(error, 'ELOOP')) throw error;
    let target: Buffer;
    try {
      target = readlinkSync(at, { encoding: 'buffer' });
    } catch (again) {
      if (hasErrorCode(again, 'ENOENT')) return undefined;
      throw treeChanged(path, 'EEXIST', 'no longer a symlink');
    }
    writeFileSync(linkFile, target);
    return { mode: '120000', source: linkFile };
  }
  const stats = fstatSync(fd);
  if (!stats.isFile()) {
    closeSync(fd);
    throw treeChanged(path, stats.isDirectory() ? 'EISDIR' : 'EEXIST', 'no longer a regular file');
  }
  return { mode: gitPerm(stats.mode) === 0o755 ? '100755' : '100644', source: `/proc/${process.pid}/fd/${fd}`, fd };
}
