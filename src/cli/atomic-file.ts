/**
 * Writing a configuration file back without ever leaving it half-written, and without undoing
 * someone else's edit: the new text goes to an exclusively created temporary file beside the
 * real file (a link is followed with `realpath`, and stays a link), is flushed to disk, and
 * replaces the file by `rename` (`replaceAtomically`); just before, the file is read again and the
 * write is refused when it is no longer what was read. Two `agents` commands never get this far
 * at once: `editAgentsFile` holds the file's lock around the whole read-modify-write.
 */

import { lstat, readFile, readlink, realpath, stat } from 'node:fs/promises';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, hasErrorCode, messageOf } from '../errors/mcp-actors-error.js';
import { replaceAtomically } from '../files/atomic-replace.js';

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
    throw readError(path, error);
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
 * The file an edit of `path` must write: `path` itself, or, when `path` is a link (agents.yaml
 * kept in a dotfiles repository), the file it leads to, so the edit lands there and the link stays.
 * A link that leads nowhere is refused rather than replaced by a file.
 */
export async function editTarget(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if (!hasErrorCode(error, 'ENOENT')) throw readError(path, error);
  }
  const link = await lstat(path).catch(() => undefined);
  if (link?.isSymbolicLink()) {
    const to = await readlink(path).catch(() => '?');
    throw new McpActorsError(
      ErrorCode.NOT_FOUND,
      `${path} is a link to ${to}, which does not exist; create that file, or remove the link`,
      { details: { file: path } },
    );
  }
  return path; // a file to be created
}

function readError(path: string, error: unknown): McpActorsError {
  return new McpActorsError(ErrorCode.CONFIG_INVALID, `${path} cannot be read (${messageOf(error)}); check that the file is readable`, {
    cause: error,
    details: { file: path },
  });
}

/**
 * Replaces the file of `snapshot` with `text`, atomically, keeping its permissions; a link is
 * followed to the file it leads to, which is replaced (the link stays). Throws `CONFIG_CHANGED`
 * (and writes nothing) when the file is no longer what `snapshot` holds.
 *
 * @example
 * const before = await readSnapshot('agents.yaml');
 * await replaceFile(before, before.text + '\n# reviewed\n');
 */
export async function replaceFile(snapshot: FileSnapshot, text: string, options: WriteOptions = {}): Promise<void> {
  await stillAsRead(snapshot);
  const target = await editTarget(snapshot.path);
  const mode = snapshot.text === undefined ? 0o644 : (await stat(target)).mode & 0o7777;
  await replaceAtomically(target, text, {
    mode,
    beforeRename: async (temporary) => {
      if (options.pauseBeforeRenameMs !== undefined) {
        options.onPause?.(temporary);
        await new Promise((resolve) => setTimeout(resolve, options.pauseBeforeRenameMs));
      }
      await stillAsRead(snapshot);
    },
  });
}
