/**
 * Everything observable about a directory tree, for comparing two states exactly: every path with
 * its type, exact permission bits, content hash (files) or target text (symlinks).
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

export type TreeEntry =
  | { readonly type: 'dir'; readonly mode: string }
  | { readonly type: 'file'; readonly mode: string; readonly sha256: string; readonly size: number }
  | { readonly type: 'symlink'; readonly target: string }
  | { readonly type: 'other'; readonly mode: string };

/**
 * The tree under `root` by relative path (`.` is the root), sorted. Modes are octal strings so a
 * failing comparison reads `"600"`, not `384`. `skipTopGit` leaves out a `.git` entry at the top.
 *
 * @example
 * const before = snapshotTree(dir);
 * // ...
 * expect(snapshotTree(dir)).toEqual(before);
 */
export function snapshotTree(root: string, options: { skipTopGit?: boolean } = {}): Record<string, TreeEntry> {
  const entries: [string, TreeEntry][] = [];
  const visit = (relative: string): void => {
    const absolute = relative === '.' ? root : join(root, relative);
    const stat = lstatSync(absolute);
    const mode = (stat.mode & 0o7777).toString(8);
    if (stat.isSymbolicLink()) {
      entries.push([relative, { type: 'symlink', target: readlinkSync(absolute) }]);
    } else if (stat.isFile()) {
      const sha256 = createHash('sha256').update(readFileSync(absolute)).digest('hex');
      entries.push([relative, { type: 'file', mode, sha256, size: stat.size }]);
    } else if (stat.isDirectory()) {
      entries.push([relative, { type: 'dir', mode }]);
      for (const name of readdirSync(absolute)) {
        if (relative === '.' && name === '.git' && options.skipTopGit) continue;
        visit(relative === '.' ? name : `${relative}/${name}`);
      }
    } else {
      entries.push([relative, { type: 'other', mode }]);
    }
  };
  visit('.');
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return Object.fromEntries(entries);
}
