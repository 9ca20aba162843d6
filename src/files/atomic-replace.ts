/**
 * Replacing a file without ever leaving it half-written and without writing through a link
 * someone planted: the new content goes to a temporary file beside it whose name carries 16
 * random bytes, created with `O_CREAT|O_EXCL|O_NOFOLLOW` (an existing file or link there makes
 * the open fail instead of being written through), given its mode, flushed, and renamed over the
 * file (atomic on one filesystem). `rename` replaces the name itself: a link at `path` is
 * replaced, never followed — resolve it first (`realpath`) when the link is to be kept.
 */

import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isAlive } from './file-lock.js';

export interface ReplaceOptions {
  /** The file's permission bits, whatever the umask (default 0o600). */
  readonly mode?: number;
  /** Runs after the temporary file is written and before the rename (a check, or a crash test's pause). */
  readonly beforeRename?: (temporaryPath: string) => Promise<void>;
}

// Windows has no O_NOFOLLOW: undefined there, whatever the types say.
const NO_FOLLOW = (constants.O_NOFOLLOW as number | undefined) ?? 0;

/**
 * Writes `text` to `path` atomically: other readers see the old file or the new one, whole.
 *
 * @example
 * await replaceAtomically('/home/me/.config/mcp-actors/auth.json', '{}\n', { mode: 0o600 });
 */
export async function replaceAtomically(path: string, text: string, options: ReplaceOptions = {}): Promise<void> {
  const folder = dirname(path);
  await removeStaleTemporaries(path);
  const temporary = join(folder, `.${basename(path)}.${process.pid}.${randomBytes(16).toString('hex')}.tmp`);
  const mode = options.mode ?? 0o600;
  const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, mode);
  try {
    try {
      await handle.chmod(mode); // whatever the umask
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.beforeRename?.(temporary);
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await syncFolder(folder);
}

/**
 * Temporary files a write of `path` left behind when its process was killed between writing and
 * renaming (`.<name>.<pid>.<hex>.tmp`): removed when that process is gone. A live pid's file may
 * be a write in flight, and is left alone.
 */
export async function removeStaleTemporaries(path: string): Promise<void> {
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
