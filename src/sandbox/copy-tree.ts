/**
 * Filesystem copying for the sandbox: whole trees (copy kind, ignored directories) and single
 * entries (carrying the host's uncommitted work), keeping modes, symlinks as symlinks and empty
 * directories. Sockets, FIFOs and devices are skipped: they cannot be copied meaningfully.
 */
import { randomBytes } from 'node:crypto';
import { constants, type Dirent, type Stats } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, readdir, readlink, rename, rm, rmdir, symlink, unlink } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';

/**
 * Return true to leave an entry (and, for a directory, everything below it) out of a copy. Gets the
 * path relative to the copied root (`/`-separated), the entry, and its absolute source path.
 */
export type SkipEntry = (relativePath: string, entry: Dirent, sourcePath: string) => boolean;

export interface CopyTreeReport {
  /** Regular files and symlinks copied. */
  readonly entries: number;
  /** Paths (relative to the source) left out because they are sockets, FIFOs or devices. */
  readonly special: readonly string[];
}

/** At most `concurrency` tasks at once: enough parallel I/O to be quick, few enough descriptors. */
export function limiter(concurrency: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
    try {
      return await task();
    } finally {
      active -= 1;
      waiting.shift()?.();
    }
  };
}

const io = limiter(32);

/**
 * Copies the tree at `source` into `target` (created; must not exist yet).
 *
 * @example
 * await copyTree('/home/me/project', '/tmp/sb/copy', { skip: (_, e) => e.name === 'node_modules' });
 */
export async function copyTree(source: string, target: string, options: { skip?: SkipEntry } = {}): Promise<CopyTreeReport> {
  const report = { entries: 0, special: [] as string[] };
  const rootStats = await lstat(source);
  await copyDirectory(source, target, rootStats, '', options.skip, report);
  return report;
}

async function copyDirectory(
  source: string,
  target: string,
  stats: Stats,
  relativePath: string,
  skip: SkipEntry | undefined,
  report: { entries: number; special: string[] },
): Promise<void> {
  // Created writable first, given its real mode last: a 0555 directory must still be filled.
  await mkdir(target, { mode: 0o700 });
  const entries = await io(() => readdir(source, { withFileTypes: true }));
  await Promise.all(
    entries.map(async (entry) => {
      const childRelative = relativePath === '' ? entry.name : `${relativePath}/${entry.name}`;
      const from = join(source, entry.name);
      if (skip?.(childRelative, entry, from)) return;
      const to = join(target, entry.name);
      if (entry.isDirectory()) {
        await copyDirectory(from, to, await lstat(from), childRelative, skip, report);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        await io(() => copyLeaf(from, to, entry.isSymbolicLink()));
        report.entries += 1;
      } else {
        report.special.push(childRelative);
      }
    }),
  );
  await chmod(target, stats.mode & 0o7777);
}

async function copyLeaf(from: string, to: string, isSymlink: boolean): Promise<void> {
  if (isSymlink) {
    await symlink(await readlink(from), to);
    return;
  }
  // FICLONE: a reflink where the filesystem offers one (btrfs, xfs), an ordinary copy elsewhere.
  // copyFile gives the copy the source's permission bits, whatever the umask.
  await copyFile(from, to, constants.COPYFILE_FICLONE);
}

/**
 * Makes `target` a copy of the file, symlink or directory at `source`, replacing whatever is there.
 * Files arrive through a temporary name and a rename, so the target always gets a new inode (git's
 * stat cache then never mistakes it for the old file) and is never seen half-written.
 */
export async function copyEntry(source: string, target: string, options: { skip?: SkipEntry } = {}): Promise<void> {
  const stats = await lstat(source);
  const existing = await lstatOrUndefined(target);
  if (stats.isDirectory()) {
    if (existing) await rm(target, { recursive: true, force: true });
    await mkdir(dirname(target), { recursive: true });
    await copyDirectory(source, target, stats, '', options.skip, { entries: 0, special: [] });
    return;
  }
  if (!stats.isFile() && !stats.isSymbolicLink()) return;
  if (existing?.isDirectory()) await rm(target, { recursive: true, force: true });
  await mkdir(dirname(target), { recursive: true });
  const temporary = temporaryNameBeside(target);
  try {
    await copyLeaf(source, temporary, stats.isSymbolicLink());
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** A hidden name in the same directory as `path`, so a rename onto `path` stays on one filesystem. */
export function temporaryNameBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.mcp-actors-${randomBytes(6).toString('hex')}.tmp`);
}

export async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Removes the file or symlink at `path` if present, then the directories its removal left empty. */
export async function removeEntry(path: string, stopAt: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  await removeEmptyParents(dirname(path), stopAt);
}

/** Like `git rm`: walks up from `directory` removing empty directories, never `stopAt` itself. */
export async function removeEmptyParents(directory: string, stopAt: string): Promise<void> {
  let current = directory;
  while (isStrictlyInside(current, stopAt)) {
    try {
      await rmdir(current);
    } catch {
      return; // not empty (or already gone): stop here
    }
    current = dirname(current);
  }
}

export function isStrictlyInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep);
}

export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
