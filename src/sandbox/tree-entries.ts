/** How git sees an entry of a tree: its parent's path, its name, the mode it records. Paths are `/`-separated, relative to the tree's root. */

/** `a/b/c` → `a/b`; a top-level entry's parent is the root, `''`. */
export function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** `a/b/c` → `c`. */
export function baseOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The permission bits git gives a regular file back: 755 when the owner could execute it, else 644. */
export function gitPerm(perm: number): number {
  return perm & 0o100 ? 0o755 : 0o644;
}
