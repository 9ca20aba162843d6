/**
 * A new git tree from an old one and a few changed paths, without an index: only the directories
 * on the way to a changed path are read (one `git ls-tree` for all of them) and written again (as
 * loose objects, from Node). So a snapshot that changed k paths costs O(k × depth), not a read and
 * rewrite of an index holding every file of the tree.
 *
 * Git's rules kept: entries sorted as git sorts them (a tree's name compares as `name/`), modes as
 * git writes them (`40000`, `100644`, `100755`, `120000`, `160000`), no empty tree below the root.
 */
import { createHash } from 'node:crypto';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import type { Git } from './git.js';
import { splitNul } from './git-process.js';

/** What a changed path holds now; `undefined`: it is gone. */
export type TreeEntryChange = { readonly mode: string; readonly oid: string } | undefined;

interface Entry {
  mode: string;
  oid: string;
}

/** The id of the empty tree, which git knows without storing it. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/**
 * The tree `base` with `changes` applied (paths relative to the root, `/`-separated, files and
 * symlinks only). New trees go to `objectsDir` (loose objects); `git` reads the old ones, from the
 * store or its alternates.
 *
 * @example
 * const tree = await updateTree(git, objectsDir, oldTree, new Map([['src/a.ts', { mode: '100644', oid }]]));
 */
export async function updateTree(
  git: Git,
  objectsDir: string,
  base: string,
  changes: ReadonlyMap<string, TreeEntryChange>,
): Promise<string> {
  if (changes.size === 0) return base;
  // Every directory on the way to a changed path, the root ('') included.
  const dirs = new Set<string>(['']);
  for (const path of changes.keys()) {
    for (let cut = path.indexOf('/'); cut >= 0; cut = path.indexOf('/', cut + 1)) dirs.add(path.slice(0, cut));
  }
  const listed = await listDirectories(git, base, [...dirs]);
  // Deepest first, so a directory's new tree is known when its parent is written.
  const ordered = [...dirs].sort((a, b) => depthOf(b) - depthOf(a));
  const written = new Map<string, string | undefined>();
  for (const dir of ordered) {
    const entries = listed.get(dir) ?? new Map<string, Entry>();
    for (const [path, change] of changes) {
      if (parentOf(path) !== dir) continue;
      const name = nameOf(path);
      if (change === undefined) entries.delete(name);
      else entries.set(name, { mode: change.mode, oid: change.oid });
    }
    for (const [child, oid] of written) {
      if (parentOf(child) !== dir || child === '') continue;
      const name = nameOf(child);
      // A directory left empty goes — unless its name is now a file or link (changed above).
      if (oid !== undefined) entries.set(name, { mode: '40000', oid });
      else if (entries.get(name)?.mode === '40000') entries.delete(name);
    }
    written.set(dir, entries.size === 0 ? undefined : await writeTree(objectsDir, entries));
  }
  return written.get('') ?? EMPTY_TREE;
}

/** The entries of each directory of `tree` that exists (one `ls-tree` for all of them). */
async function listDirectories(git: Git, tree: string, dirs: readonly string[]): Promise<Map<string, Map<string, Entry>>> {
  const result = new Map<string, Map<string, Entry>>();
  for (const dir of dirs) result.set(dir, new Map());
  const add = (output: Buffer): void => {
    for (const record of splitNul(output)) {
      const tab = record.indexOf('\t');
      const [mode = '', , oid = ''] = record.slice(0, tab).split(' ');
      const path = record.slice(tab + 1);
      result.get(parentOf(path))?.set(nameOf(path), { mode: mode.replace(/^0+/, ''), oid });
    }
  };
  add(await git(['ls-tree', '-z', tree]));
  const below = dirs.filter((dir) => dir !== '');
  // A directory named with a trailing `/` lists its children; one that does not exist lists nothing.
  for (let i = 0; i < below.length; i += 200)
    add(await git(['ls-tree', '-z', tree, '--', ...below.slice(i, i + 200).map((dir) => `${dir}/`)]));
  return result;
}

/** Writes a tree object (if not there yet) and returns its id. */
async function writeTree(objectsDir: string, entries: ReadonlyMap<string, Entry>): Promise<string> {
  const sorted = [...entries].sort(([a, x], [b, y]) => compareGitNames(a, x.mode === '40000', b, y.mode === '40000'));
  const body = Buffer.concat(
    sorted.map(([name, entry]) => Buffer.concat([Buffer.from(`${entry.mode} ${name}\0`, 'utf8'), Buffer.from(entry.oid, 'hex')])),
  );
  const object = Buffer.concat([Buffer.from(`tree ${body.length}\0`), body]);
  const oid = createHash('sha1').update(object).digest('hex');
  const dir = join(objectsDir, oid.slice(0, 2));
  const file = join(dir, oid.slice(2));
  if (
    await stat(file).then(
      () => true,
      () => false,
    )
  )
    return oid;
  await mkdir(dir, { recursive: true });
  // Written whole under a temporary name, then renamed: git never sees half an object.
  const temp = join(dir, `tmp_obj_${randomBytes(6).toString('hex')}`);
  try {
    await writeFile(temp, deflateSync(object), { mode: 0o444, flag: 'wx' });
    await rename(temp, file);
  } finally {
    await rm(temp, { force: true });
  }
  return oid;
}

/** Git's tree order: names compared as bytes, a tree's name as if it ended in `/`. */
export function compareGitNames(a: string, aIsTree: boolean, b: string, bIsTree: boolean): number {
  const left = Buffer.from(aIsTree ? `${a}/` : a, 'utf8');
  const right = Buffer.from(bIsTree ? `${b}/` : b, 'utf8');
  return Buffer.compare(left, right);
}

function parentOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut < 0 ? '' : path.slice(0, cut);
}

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function depthOf(dir: string): number {
  return dir === '' ? 0 : dir.split('/').length;
}
