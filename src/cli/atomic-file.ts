/**
 * Writing a configuration file back without ever leaving it half-written, and without undoing
 * someone else's edit: the new text goes to a temporary file beside it, is flushed to disk, and
 * replaces the file by `rename` (atomic on one filesystem); just before, the file is read again
 * and the write is refused when it is no longer what was read.
 */

import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readFile, readdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, messageOf } from '../errors/mcp-actors-error.js';

/** A file as it was read for an edit: its text, or that it did not exist. */
export interface FileSnapshot {
  readonly path: string;
  /** undefined when the file did not exist. */
  readonly text: string | undefined;
}

export interface WriteOptions {
  /**
   * For crash tests: after the temporary file is written and before the rename, report its path
   * through `onPause` and wait this long (a test SIGKILLs the process there).
   */
  readonly pauseBeforeRenameMs?: number;
  readonly onPause?: (temporaryPath: string) => void;
}

/** Reads `path` for an edit; a file that does not exist is a snapshot without text. */
export async function readSnapshot(path: string): Promise<FileSnapshot> {
  try {
    return { path, text: await readFile(path, 'utf8') };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path, text: undefined };
    throw new McpActorsError(ErrorCode.CONFIG_INVALID, `${path} cannot be read (${messageOf(error)}); check that the file is readable`, {
      cause: error,
      details: { file: path },
    });
  }
}

async function stillAsRead(snapshot: FileSnapshot): Promise<void> {
  const now = await readSnapshot(snapshot.path);
  if (now.text === snapshot.text) return;
  const what = snapshot.text === undefined ? 'was created' : now.text === undefined ? 'was deleted' : 'changed';
  throw new McpActorsError(
    ErrorCode.CONFIG_CHANGED,
    `${snapshot.path} ${what} while this edit was being made; nothing was written: run the command again`,
    { details: { file: snapshot.path } },
  );
}

/**
 * Replaces the file of `snapshot` with `text`, atomically, keeping its permissions. Throws
 * `CONFIG_CHANGED` (and writes nothing) when the file is no longer what `snapshot` holds.
 *
 * @example
 * const before = await readSnapshot('agents.yaml');
 * await replaceFile(before, before.text + '\n# reviewed\n');
 */
export async function replaceFile(snapshot: FileSnapshot, text: string, options: WriteOptions = {}): Promise<void> {
  await stillAsRead(snapshot);
  await removeStaleTemporaries(snapshot.path);
  const mode = snapshot.text === undefined ? 0o644 : (await stat(snapshot.path)).mode & 0o7777;
  const temporary = join(dirname(snapshot.path), `.${basename(snapshot.path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  try {
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (options.pauseBeforeRenameMs !== undefined) {
      options.onPause?.(temporary);
      await new Promise((resolve) => setTimeout(resolve, options.pauseBeforeRenameMs));
    }
    await stillAsRead(snapshot);
    await rename(temporary, snapshot.path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await syncFolder(dirname(snapshot.path));
}

/** Whether a process with this pid is alive (EPERM: alive, but someone else's). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Temporary files an edit of `path` left behind when its process was killed between writing and
 * renaming (`.agents.yaml.<pid>.<hex>.tmp`): removed when that process is gone. A live pid's file
 * may be an edit in flight, and is left alone.
 */
async function removeStaleTemporaries(path: string): Promise<void> {
  const folder = dirname(path);
  const escaped = basename(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp('^\\.' + escaped + '\\.(\\d+)\\.[0-9a-f]+\\.tmp$');
  const names = await readdir(folder).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(pattern.exec(name)?.[1] ?? Number.NaN);
    if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid)) await unlink(join(folder, name)).catch(() => undefined);
  }
}

/** So the rename itself survives a power cut; not every platform can open a folder, which is fine. */
async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, constants.O_RDONLY);
    await handle.sync().finally(() => handle.close());
  } catch {
    // best effort
  }
}
