/**
 * The difference between two snapshots as a list of changed paths: git's tree diff for content and
 * type, the manifests for exact modes, directories and the entries git cannot index.
 */
import { createHash } from 'node:crypto';
import type { Git } from './git.js';
import { splitNul } from './git.js';
import { gitPerm } from './tree-entries.js';
import { compareStrings, type ExtraEntry, type ManifestIndex } from './tree-manifest.js';

export type ChangeKind = 'added' | 'modified' | 'deleted';
export type ChangeType = 'file' | 'symlink' | 'directory';

/**
 * One changed path. A path that changed type (file ↔ symlink ↔ directory) appears twice: `deleted`
 * with the old type, then `added` with the new one.
 */
export interface FileChange {
  /** Relative to the root, `/`-separated; the root itself is `.`. */
  readonly path: string;
  readonly kind: ChangeKind;
  readonly type: ChangeType;
  /**
   * Content before, as a git blob id (SHA-1 over `blob <size>\0<bytes>`, what `git hash-object`
   * prints); for a symlink, the blob of its target text. Absent for directories and when added.
   */
  readonly before?: string;
  readonly after?: string;
  /** Exact permission bits (`0o600`, `0o4755`, …) of files and directories; absent for symlinks. */
  readonly modeBefore?: number;
  readonly modeAfter?: number;
}

/** One side of a snapshot for the change set: its git tree and its manifest. */
export interface SnapshotSide {
  readonly tree: string;
  readonly manifest: ManifestIndex;
}

interface Item {
  readonly type: 'file' | 'symlink';
  readonly blob: string;
  readonly perm?: number;
}

export interface RawDiffEntry {
  readonly path: string;
  readonly srcMode: string;
  readonly dstMode: string;
  readonly srcBlob: string;
  readonly dstBlob: string;
}

const ABSENT_MODE = '000000';
const REV_PARSE_CHUNK = 200;

/**
 * The changes that turn `from` into `to`, sorted by path.
 *
 * @example
 * const changes = await changeSet(git, { tree: a, manifest: indexManifest(ma) }, { tree: b, manifest: indexManifest(mb) });
 */
export async function changeSet(git: Git, from: SnapshotSide, to: SnapshotSide): Promise<FileChange[]> {
  const raw =
    from.tree === to.tree
      ? []
      : parseRawDiff(await git(['diff-tree', '-r', '-z', '--raw', '--no-renames', '--no-abbrev', from.tree, to.tree]));
  const modeOnly = modeOnlyPaths(raw, from.manifest, to.manifest);
  const blobs = await blobsAt(git, to.tree, modeOnly);
  return computeChanges(raw, from.manifest, to.manifest, blobs);
}

/** Parses `git diff-tree -r -z --raw` output: `:<mode> <mode> <blob> <blob> <status>\0<path>\0`. */
export function parseRawDiff(output: Buffer | string): RawDiffEntry[] {
  const fields = splitNul(output);
  const entries: RawDiffEntry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [srcMode = '', dstMode = '', srcBlob = '', dstBlob = ''] = (fields[i] as string).slice(1).split(' ');
    entries.push({ path: fields[i + 1] as string, srcMode, dstMode, srcBlob, dstBlob });
  }
  return entries;
}

/** Pure core of `changeSet`; `blobs` holds the (unchanged) blob of every mode-only change. */
export function computeChanges(
  raw: readonly RawDiffEntry[],
  from: ManifestIndex,
  to: ManifestIndex,
  blobs: ReadonlyMap<string, string>,
): FileChange[] {
  const changes: FileChange[] = [];
  const seen = new Set<string>();
  for (const entry of raw) {
    seen.add(entry.path);
    pushItemChange(
      changes,
      entry.path,
      itemOf(entry.srcMode, entry.srcBlob, from.modes.get(entry.path)),
      itemOf(entry.dstMode, entry.dstBlob, to.modes.get(entry.path)),
    );
  }
  for (const path of modeOnlyPaths(raw, from, to, seen)) {
    const blob = blobs.get(path) ?? '';
    const [before, after] = exactPerms(path, from, to);
    pushItemChange(changes, path, { type: 'file', blob, perm: before }, { type: 'file', blob, perm: after });
  }
  for (const path of from.extras === to.extras ? [] : new Set([...from.extras.keys(), ...to.extras.keys()])) {
    const before = from.extras.get(path);
    const after = to.extras.get(path);
    pushItemChange(changes, path, before && extraItem(before), after && extraItem(after));
  }
  for (const path of from.dirs === to.dirs ? [] : new Set([...from.dirs.keys(), ...to.dirs.keys()])) {
    const modeBefore = from.dirs.get(path);
    const modeAfter = to.dirs.get(path);
    if (modeBefore === modeAfter) continue;
    const shown = path === '' ? '.' : path;
    if (modeBefore === undefined) changes.push({ path: shown, kind: 'added', type: 'directory', modeAfter });
    else if (modeAfter === undefined) changes.push({ path: shown, kind: 'deleted', type: 'directory', modeBefore });
    else changes.push({ path: shown, kind: 'modified', type: 'directory', modeBefore, modeAfter });
  }
  const order: Record<ChangeKind, number> = { deleted: 0, modified: 1, added: 2 };
  return changes.sort((a, b) => compareStrings(a.path, b.path) || order[a.kind] - order[b.kind]);
}

/** The git blob id of `content`, as `git hash-object` computes it. */
export function gitBlobId(content: string | Buffer): string {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** Files whose content and git mode are equal on both sides but whose exact permission bits differ. */
function modeOnlyPaths(raw: readonly RawDiffEntry[], from: ManifestIndex, to: ManifestIndex, seen?: ReadonlySet<string>): string[] {
  const inDiff = seen ?? new Set(raw.map((entry) => entry.path));
  const paths: string[] = [];
  // The same table on both sides (nothing changed in it): no path differs in its mode alone.
  if (from.modes === to.modes) return paths;
  for (const path of new Set([...from.modes.keys(), ...to.modes.keys()])) {
    if (inDiff.has(path)) continue;
    const [before, after] = exactPerms(path, from, to);
    if (before !== after) paths.push(path);
  }
  return paths;
}

/** With the git mode unchanged, the side without an entry has git's mode for the other side's exec bit. */
function exactPerms(path: string, from: ManifestIndex, to: ManifestIndex): [number, number] {
  const before = from.modes.get(path);
  const after = to.modes.get(path);
  return [before ?? gitPerm(after as number), after ?? gitPerm(before as number)];
}

async function blobsAt(git: Git, tree: string, paths: readonly string[]): Promise<Map<string, string>> {
  const blobs = new Map<string, string>();
  for (let start = 0; start < paths.length; start += REV_PARSE_CHUNK) {
    const chunk = paths.slice(start, start + REV_PARSE_CHUNK);
    const ids = (await git(['rev-parse', ...chunk.map((path) => `${tree}:${path}`)])).toString('utf8').trim().split('\n');
    chunk.forEach((path, i) => blobs.set(path, ids[i] ?? ''));
  }
  return blobs;
}

function itemOf(mode: string, blob: string, exactPerm: number | undefined): Item | undefined {
  if (mode === ABSENT_MODE) return undefined;
  if (mode === '120000') return { type: 'symlink', blob };
  return { type: 'file', blob, perm: exactPerm ?? (mode === '100755' ? 0o755 : 0o644) };
}

function extraItem(entry: ExtraEntry): Item {
  return entry.type === 'file' ? { type: 'file', blob: entry.blob, perm: entry.perm } : { type: 'symlink', blob: gitBlobId(entry.target) };
}

function pushItemChange(changes: FileChange[], path: string, before: Item | undefined, after: Item | undefined): void {
  if (before && after && before.type === after.type) {
    if (before.blob === after.blob && before.perm === after.perm) return;
    changes.push({ path, kind: 'modified', type: before.type, before: before.blob, after: after.blob, ...perms(before.perm, after.perm) });
    return;
  }
  if (before) changes.push({ path, kind: 'deleted', type: before.type, before: before.blob, ...perms(before.perm, undefined) });
  if (after) changes.push({ path, kind: 'added', type: after.type, after: after.blob, ...perms(undefined, after.perm) });
}

function perms(modeBefore: number | undefined, modeAfter: number | undefined): { modeBefore?: number; modeAfter?: number } {
  return {
    ...(modeBefore === undefined ? {} : { modeBefore }),
    ...(modeAfter === undefined ? {} : { modeAfter }),
  };
}
