/**
 * The SPAWN_FAILED error for a command that could not be started: it names the server, the
 * command and the working directory, and says what to check for the usual causes (ENOENT: not
 * found or a missing cwd; EACCES: not executable; EMFILE, ENFILE, EAGAIN, ENOMEM: the host is out
 * of descriptors, processes or memory — transient, so the supervisor retries with backoff).
 */
import { stat } from 'node:fs/promises';
import { ErrorCode, McpActorsError, messageOf } from '../errors/index.js';

export interface SpawnTarget {
  readonly command: string;
  readonly cwd?: string | undefined;
  readonly serverName: string;
}

/** Errno codes that say the host lacked a resource for a moment: the same spawn may work later. */
export const TRANSIENT_SPAWN_ERRNOS: readonly string[] = ['EMFILE', 'ENFILE', 'EAGAIN', 'ENOMEM'];

/** Whether a spawn failure (a SPAWN_FAILED error or the raw errno error) may pass by itself. */
export function isTransientSpawnFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const details = (error as { details?: { errno?: unknown } }).details;
  const errno = details?.errno ?? (error as { code?: unknown }).code;
  return typeof errno === 'string' && TRANSIENT_SPAWN_ERRNOS.includes(errno);
}

/**
 * @example
 * child.on('error', async (cause) => reject(await spawnFailedError(cause, { command, cwd, serverName })));
 */
export async function spawnFailedError(cause: unknown, options: SpawnTarget): Promise<McpActorsError> {
  const { command, cwd, serverName } = options;
  const where = cwd ?? process.cwd();
  const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  let advice: string;
  if (cwd !== undefined && !(await isDirectory(cwd))) {
    advice = `the working directory "${cwd}" does not exist or is not a directory; check the server's cwd setting`;
  } else if (code === 'ENOENT') {
    advice = `the command was not found; check its spelling and that it is installed and on the PATH the server gets (the host's PATH unless env.PATH is configured)`;
  } else if (code === 'EMFILE' || code === 'ENFILE') {
    advice =
      "the host has no file descriptor left for the server's pipes (too many open files); it is retried with backoff — close files or raise the limit (ulimit -n)";
  } else if (code === 'EAGAIN' || code === 'ENOMEM') {
    advice =
      'the host could not create a process just now (process or memory limit); it is retried with backoff — check ulimit -u and free memory';
  } else if (code === 'EACCES') {
    advice = 'the command is not executable; check that it is a file (not a directory) with execute permission (chmod +x)';
  } else {
    advice = `${messageOf(cause)}; check the command, its arguments and the cwd setting`;
  }
  return new McpActorsError(
    ErrorCode.SPAWN_FAILED,
    `server "${serverName}": cannot start "${command}" in "${where}"${typeof code === 'string' ? ` (${code})` : ''}: ${advice}`,
    {
      cause,
      details: {
        serverName,
        command,
        cwd: where,
        ...(typeof code === 'string' ? { errno: code, transient: TRANSIENT_SPAWN_ERRNOS.includes(code) } : {}),
      },
    },
  );
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
