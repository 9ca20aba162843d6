/**
 * An inter-process lock on a file the runtime or the CLI rewrites (the token store, agents.yaml):
 * a lock file created with `O_CREAT|O_EXCL` (`'wx'`), which exactly one process can create. It
 * holds `{ pid, host, token }`; the holder touches it every quarter of `staleMs` so a live holder
 * is never taken for a dead one.
 *
 * A lock is stale when its holder is gone (same host, pid not alive or a zombie) or when it has not
 * been touched for `staleMs` (a pid reused, a frozen holder, another host). A stale lock is removed
 * under a second, short-lived lock (`<lock>.break`) after reading it again, so two waiters that
 * both found it stale cannot remove a fresh lock one of them has just taken. Release removes the
 * lock only while it still holds the holder's token.
 */

import { randomBytes } from 'node:crypto';
import { constants, readFileSync } from 'node:fs';
import { lstat, open, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, hasErrorCode } from '../errors/mcp-actors-error.js';
import { backoffDelay } from '../timing/backoff.js';

/** The pause before the next look at a held lock: the one backoff, jittered so that waiters do not look in step. */
const LOCK_BACKOFF = { initialMs: 10, factor: 2, maxMs: 150, jitter: 0.5 } as const;

export interface FileLockOptions {
  /** How long to wait for a live holder before failing with `FILE_BUSY` (default 30 s). */
  readonly timeoutMs?: number;
  /** A lock not touched for this long is stale whoever holds it (default 10 s). */
  readonly staleMs?: number;
  /** What the file is, for the error: "agents.yaml", "the token file". */
  readonly what?: string;
}

/** A held lock: give it back once. */
export interface HeldFileLock {
  readonly path: string;
  release(): Promise<void>;
}

interface LockContent {
  readonly pid?: number;
  readonly host?: string;
  readonly token?: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_STALE_MS = 10_000;
// Windows has no O_NOFOLLOW: undefined there, whatever the types say.
const NO_FOLLOW = (constants.O_NOFOLLOW as number | undefined) ?? 0;

/** The lock file of `path`: `.<name>.lock` beside it. */
export function lockPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.lock`);
}

/**
 * Runs `work` holding the lock of `path` (`lockPathFor(path)`), and gives the lock back however
 * `work` ends. The folder of `path` must exist.
 *
 * @example
 * await withFileLock('/home/me/.config/mcp-actors/auth.json', async () => {
 *   const all = JSON.parse(await readFile(file, 'utf8'));
 *   await replaceAtomically(file, JSON.stringify({ ...all, [key]: value }), { mode: 0o600 });
 * });
 */
export async function withFileLock<T>(path: string, work: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const lock = await acquireFileLock(lockPathFor(path), options);
  try {
    return await work();
  } finally {
    await lock.release();
  }
}

/** Takes the lock file `lockPath`, waiting for a live holder up to `timeoutMs`. */
export async function acquireFileLock(lockPath: string, options: FileLockOptions = {}): Promise<HeldFileLock> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  const token = randomBytes(16).toString('hex');
  const content = JSON.stringify({ pid: process.pid, host: hostname(), token });
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt += 1) {
    if (await tryCreate(lockPath, content)) return held(lockPath, token, staleMs);
    const seen = await readLock(lockPath);
    if (seen === undefined) continue; // given back just now: try again at once
    if (isStale(seen, staleMs)) {
      await breakStale(lockPath, seen.text, staleMs);
      continue;
    }
    if (Date.now() >= deadline) {
      const holder = parse(seen.text).pid;
      throw new McpActorsError(
        ErrorCode.FILE_BUSY,
        `${options.what ?? lockPath} is being written by another process${holder !== undefined ? ` (pid ${holder})` : ''} for longer than ${timeoutMs} ms; nothing was written: try again when it is done, or remove ${lockPath} if no such process runs`,
        { details: { lock: lockPath, ...(holder !== undefined ? { pid: holder } : {}) } },
      );
    }
    await sleep(backoffDelay(LOCK_BACKOFF, attempt, Math.random()));
  }
}

async function tryCreate(lockPath: string, content: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(lockPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o600);
  } catch (error) {
    if (hasErrorCode(error, 'EEXIST')) return false;
    throw error;
  }
  try {
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
  return true;
}

function held(lockPath: string, token: string, staleMs: number): HeldFileLock {
  const heartbeat = setInterval(
    () => {
      const now = new Date();
      utimes(lockPath, now, now).catch(() => undefined);
    },
    Math.max(staleMs / 4, 10),
  );
  heartbeat.unref();
  let released = false;
  return {
    path: lockPath,
    async release() {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      const seen = await readLock(lockPath);
      // Not ours any more (judged stale while this process was frozen): leave the new holder's lock.
      if (seen !== undefined && parse(seen.text).token === token) await unlink(lockPath).catch(() => undefined);
    },
  };
}

interface SeenLock {
  readonly text: string;
  readonly mtimeMs: number;
}

/** The lock's text and last touch; undefined when there is no lock. A link there is read as garbage. */
async function readLock(lockPath: string): Promise<SeenLock | undefined> {
  try {
    const { mtimeMs } = await lstat(lockPath);
    let text = '';
    try {
      const handle = await open(lockPath, constants.O_RDONLY | NO_FOLLOW);
      try {
        text = await handle.readFile('utf8');
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT')) return undefined;
      // ELOOP (a link planted there) and the like: no holder can be named, so only its age counts.
    }
    return { text, mtimeMs };
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return undefined;
    throw error;
  }
}

function parse(text: string): LockContent {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return {}; // empty: its creator has not written it yet (or died before)
  }
}

function isStale(seen: SeenLock, staleMs: number): boolean {
  if (Date.now() - seen.mtimeMs > staleMs) return true;
  const { pid, host } = parse(seen.text);
  return typeof pid === 'number' && Number.isInteger(pid) && pid > 0 && host === hostname() && !isAlive(pid);
}

/** Whether a process with this pid runs (EPERM: it does, as someone else; a zombie does not). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return hasErrorCode(error, 'EPERM');
  }
  try {
    // Linux: a killed child lingers as a zombie until reaped, and kill(pid, 0) succeeds on it.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/**
 * Removes the stale lock whose text was `text`, holding `<lock>.break` while it reads it again:
 * if another waiter removed it and took the lock since, the text differs and nothing is removed.
 */
async function breakStale(lockPath: string, text: string, staleMs: number): Promise<void> {
  const breaker = `${lockPath}.break`;
  if (!(await tryCreate(breaker, String(process.pid)))) {
    // Another waiter is breaking it; a breaker whose process died mid-break is old and goes.
    const old = await readLock(breaker);
    if (old !== undefined && Date.now() - old.mtimeMs > staleMs) await unlink(breaker).catch(() => undefined);
    else await sleep(2);
    return;
  }
  try {
    const again = await readLock(lockPath);
    if (again !== undefined && again.text === text && isStale(again, staleMs)) await unlink(lockPath).catch(() => undefined);
  } finally {
    await unlink(breaker).catch(() => undefined);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
