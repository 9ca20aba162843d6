/**
 * Change sets between two git trees: the unified diff a person reads and the raw list a program
 * applies. Both use plumbing (`git diff-tree`), which ignores a user's porcelain settings
 * (`diff.noprefix`, `color.ui`, external diff tools, renames).
 */
import { runGit, splitNul } from './sandbox-git.js';

/** Where to run git so that both trees are readable. */
export interface TreeStore {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

/** One path that differs between two trees. Modes are git's (`100644`, `100755`, `120000`, `000000` = absent). */
export interface TreeChange {
  /** Relative to the scope (the project directory), `/`-separated. */
  readonly path: string;
  readonly kind: 'added' | 'modified' | 'deleted';
  readonly oldMode: string;
  readonly newMode: string;
  readonly oldOid: string;
  readonly newOid: string;
}

export const ABSENT_MODE = '000000';
const GITLINK_MODE = '160000';

const COMMON = ['-r', '--no-renames', '--no-ext-diff', '--no-textconv', '--ignore-submodules=all'];

function scope(prefix: string): string[] {
  // --relative both limits the diff to the prefix and strips it from every path.
  return prefix === '' ? [] : [`--relative=${prefix}`];
}

/**
 * The unified diff from `base` to `head`: `a/` and `b/` prefixes, new/deleted/mode headers, and
 * "Binary files a/x and b/x differ" for binary content (no base85 payload).
 */
export async function unifiedDiff(store: TreeStore, base: string, head: string, prefix: string): Promise<string> {
  const args = ['diff-tree', '-p', ...COMMON, '--no-color', '--src-prefix=a/', '--dst-prefix=b/', ...scope(prefix), base, head];
  return (await runGit(args, store)).stdout;
}

/** Every path that differs from `base` to `head`, submodules (gitlinks) left out. */
export async function treeChanges(store: TreeStore, base: string, head: string, prefix: string): Promise<TreeChange[]> {
  const args = ['diff-tree', '--raw', '-z', ...COMMON, ...scope(prefix), base, head];
  const fields = splitNul((await runGit(args, store)).stdout);
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    // ":100644 100755 <old> <new> M" then the path
    const [oldMode = '', newMode = '', oldOid = '', newOid = ''] = (fields[i] ?? '').slice(1).split(' ');
    const path = fields[i + 1] ?? '';
    if (oldMode === GITLINK_MODE || newMode === GITLINK_MODE) continue;
    const kind = oldMode === ABSENT_MODE ? 'added' : newMode === ABSENT_MODE ? 'deleted' : 'modified';
    changes.push({ path, kind, oldMode, newMode, oldOid, newOid });
  }
  return changes;
}
