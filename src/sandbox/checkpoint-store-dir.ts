/**
 * The checkpoint store's own directory: where it lives (never inside the tracked root, nor the
 * root inside it), its private repository, and the list of checkpoints written atomically.
 */
import { copyFile, mkdir, mkdtemp, readFile, readdir, realpath, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, hasErrorCode, messageOf } from '../errors/mcp-actors-error.js';
import { initRepository, type GitLocation } from './git.js';

export const STORE_FORMAT = 'mcp-actors-checkpoints/1';
export const STORE_FILE = 'checkpoints.json';

export interface Checkpoint {
  readonly id: string;
  /** `Date.now()` when it was taken. */
  readonly createdAt: number;
  readonly label?: string;
  /** The git tree id of the indexed content. */
  readonly tree: string;
}

export interface StoredCheckpoint extends Checkpoint {
  /** The sha256 id of its manifest in `manifests/`. */
  readonly manifest: string;
}

export interface StoreFile {
  readonly format: typeof STORE_FORMAT;
  readonly root: string;
  readonly nextNumber: number;
  readonly checkpoints: readonly StoredCheckpoint[];
}

export function locationOf(root: string, storeDir: string): GitLocation {
  return { gitDir: join(storeDir, 'git'), workTree: root, indexFile: join(storeDir, 'index'), home: storeDir };
}

export async function resolveRoot(root: string): Promise<string> {
  try {
    const resolved = await realpath(root);
    if ((await stat(resolved)).isDirectory()) return resolved;
  } catch (error) {
    throw invalid(`checkpoint root ${JSON.stringify(root)} cannot be read: ${messageOf(error)}`, error);
  }
  throw invalid(`checkpoint root ${JSON.stringify(root)} is not a directory`);
}

export async function createTempStore(root: string): Promise<string> {
  const storeDir = await realpath(await mkdtemp(join(tmpdir(), 'mcp-actors-checkpoints-')));
  if (isInside(storeDir, root)) {
    await rm(storeDir, { recursive: true, force: true });
    throw invalid(`the temp dir ${tmpdir()} is inside the checkpoint root ${root}; pass a storeDir outside it`);
  }
  return storeDir;
}

export async function checkStoreDir(root: string, storeDir: string): Promise<string> {
  // Resolve through the nearest existing ancestor, so a symlink cannot hide the store inside root.
  let existing = storeDir;
  const missing: string[] = [];
  for (;;) {
    try {
      existing = await realpath(existing);
      break;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) break;
      missing.unshift(relative(parent, existing));
      existing = parent;
    }
  }
  const resolved = join(existing, ...missing);
  if (isInside(resolved, root) || isInside(root, resolved)) {
    throw invalid(`storeDir ${JSON.stringify(storeDir)} and the checkpoint root ${JSON.stringify(root)} must not contain each other`);
  }
  return resolved;
}

/**
 * What git already knows of a tree, handed to a new store so that its first snapshot hashes only
 * what differs: an index of the tree (its stat data says which files are unchanged) and the object
 * directories its blobs are in (read as alternates, never written). Valid only where every blob in
 * the index is the file's exact bytes (no conversion or filter between them).
 */
export interface CheckpointSeed {
  readonly index: string;
  readonly objects: readonly string[];
}

export async function loadOrCreateStore(root: string, storeDir: string, seed?: CheckpointSeed): Promise<StoreFile> {
  const storeFile = join(storeDir, STORE_FILE);
  let text: string | undefined;
  try {
    text = await readFile(storeFile, 'utf8');
  } catch (error) {
    if (!hasErrorCode(error, 'ENOENT')) throw invalid(`cannot read ${storeFile}: ${messageOf(error)}`, error);
  }
  if (text !== undefined) {
    const file = JSON.parse(text) as StoreFile;
    // Written by whichever version made the store.
    const format: unknown = file.format;
    if (format !== STORE_FORMAT) throw invalid(`${storeFile} is not a checkpoint store of this version (format ${String(format)})`);
    if (file.root !== root)
      throw invalid(
        `storeDir ${JSON.stringify(storeDir)} holds checkpoints of ${JSON.stringify(file.root)}, not of ${JSON.stringify(root)}`,
      );
    return file;
  }
  await mkdir(storeDir, { recursive: true });
  const entries = await readdir(storeDir);
  if (entries.length > 0) {
    throw invalid(`storeDir ${JSON.stringify(storeDir)} is not empty and is not a checkpoint store; give an empty or new directory`);
  }
  const location = locationOf(root, storeDir);
  await initRepository(location);
  if (seed) await plantSeed(location, seed);
  const file: StoreFile = { format: STORE_FORMAT, root, nextNumber: 1, checkpoints: [] };
  await writeAtomically(storeFile, JSON.stringify(file));
  return file;
}

export async function writeAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, file);
}

export function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

export function invalid(message: string, cause?: unknown): McpActorsError {
  return new McpActorsError(ErrorCode.INVALID_ARGUMENT, message, cause === undefined ? {} : { cause });
}

/** The seed's index, with its timestamps (git's racy-file check compares them), and its alternates. */
async function plantSeed(location: GitLocation, seed: CheckpointSeed): Promise<void> {
  await copyFile(seed.index, location.indexFile);
  const times = await stat(seed.index);
  await utimes(location.indexFile, times.atime, times.mtime);
  await mkdir(join(location.gitDir, 'objects', 'info'), { recursive: true });
  await writeFile(join(location.gitDir, 'objects', 'info', 'alternates'), seed.objects.map((dir) => `${dir}\n`).join(''));
}
