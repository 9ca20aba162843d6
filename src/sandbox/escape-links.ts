/**
 * Best-effort detection of a sandbox escape by an unconfined server: a symbolic link inside the
 * sandbox, made or changed by the call, that resolves outside it. Such a link is how a path that
 * was checked inside the sandbox ends up written outside (a planted link, a directory flipped to a
 * link). Two looks: the call's final change set (`escapingLinks`), and — since a link can be made
 * and removed again within the call — every path the sandbox's watcher reports while a write runs
 * (`escapingLinkAt`, called from the event). The second is best effort: a link that lives shorter
 * than the watcher's event takes to arrive goes unseen. Only OS confinement (`confine:`)
 * guarantees that nothing is written outside; these checks tell the caller the truth about the
 * cases they can see.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { readlink, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { FileChange } from './change-set.js';

export interface EscapingLink {
  /** The link, relative to the sandbox root (`/`-separated). */
  readonly path: string;
  /** What the link says (`readlink`). */
  readonly target: string;
  /** Where it leads, absolute, outside the sandbox root. */
  readonly resolved: string;
}

/**
 * The links among `changes` (added or changed) that resolve outside `root`.
 *
 * @example
 * const escapes = await escapingLinks(sandbox.root, report.changes);
 */
export async function escapingLinks(root: string, changes: readonly FileChange[]): Promise<EscapingLink[]> {
  const links = changes.filter((change) => change.type === 'symlink' && change.kind !== 'deleted');
  if (links.length === 0) return [];
  const realRoot = await realpath(root).catch(() => resolve(root));
  const found: EscapingLink[] = [];
  for (const change of links) {
    const absolute = join(root, change.path);
    let target: string;
    try {
      target = await readlink(absolute);
    } catch {
      continue; // gone again since the snapshot
    }
    // realpath follows every link on the way; a dangling link is judged by what it says.
    const resolved = await realpath(absolute).catch(() => resolve(dirname(absolute), target));
    const lexical = isAbsolute(target) ? resolve(target) : resolve(dirname(absolute), target);
    if (!isInside(resolved, realRoot) || (!isInside(lexical, realRoot) && !isInside(lexical, resolve(root)))) {
      found.push({ path: change.path, target, resolved: isInside(resolved, realRoot) ? lexical : resolved });
    }
  }
  return found;
}

/**
 * The link at `path` (relative to `root`) if it is one and resolves outside the sandbox, looked at
 * now (synchronously: the watcher's event handler calls it, and the link may not live long).
 *
 * @example
 * const link = escapingLinkAt(root, realRoot, 'd-7'); // { path: 'd-7', target: '/etc', resolved: '/etc' }
 */
export function escapingLinkAt(root: string, realRoot: string, path: string): EscapingLink | undefined {
  const absolute = join(root, path);
  let target: string;
  try {
    if (!lstatSync(absolute).isSymbolicLink()) return undefined;
    target = readlinkSync(absolute);
  } catch {
    return undefined; // gone already
  }
  let resolved: string;
  try {
    resolved = realpathSync(absolute);
  } catch {
    resolved = resolve(dirname(absolute), target);
  }
  const lexical = isAbsolute(target) ? resolve(target) : resolve(dirname(absolute), target);
  if (isInside(resolved, realRoot) && (isInside(lexical, realRoot) || isInside(lexical, resolve(root)))) return undefined;
  return { path, target, resolved: isInside(resolved, realRoot) ? lexical : resolved };
}

/** The links of both lists, one entry per path (the first list's wins). */
export function mergeLinks(first: readonly EscapingLink[], second: readonly EscapingLink[]): EscapingLink[] {
  const byPath = new Map<string, EscapingLink>();
  for (const link of [...first, ...second]) if (!byPath.has(link.path)) byPath.set(link.path, link);
  return [...byPath.values()];
}

/** The SANDBOX_ESCAPE error of a call that left such links. */
export function sandboxEscapeError(toolName: string, links: readonly EscapingLink[]): McpActorsError {
  const list = links.map((link) => `${link.path} -> ${link.target}`).join(', ');
  return new McpActorsError(
    ErrorCode.SANDBOX_ESCAPE,
    `"${toolName}" made links inside the sandbox that resolve outside it (${list}); the call was rolled back, ` +
      'but what the server wrote through them outside the sandbox cannot be undone. Confine the server (confine: true, needs bubblewrap) so it cannot write outside',
    { details: { tool: toolName, links: links.map((link) => ({ ...link })) } },
  );
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
