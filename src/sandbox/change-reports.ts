/** What a sandbox reports of a call: the files it changed, what committing found, what rolling back did. */
import type { McpActorsError } from '../errors/mcp-actors-error.js';

/** A file a call added, modified or deleted, with content hashes before and after. */
export interface FileChange {
  readonly path: string;
  readonly kind: 'added' | 'modified' | 'deleted';
  /** What the path is (after the call; before it, for a deletion), where the sandbox says. */
  readonly type?: 'file' | 'symlink' | 'directory';
  readonly before?: string | undefined;
  readonly after?: string | undefined;
  readonly modeBefore?: number | undefined;
  readonly modeAfter?: number | undefined;
}

/** What committing found: the call's changes, or a read-only tool that changed the sandbox. */
export type CommitReport =
  | { readonly ok: true; readonly changes: readonly FileChange[] }
  | { readonly ok: false; readonly violation: McpActorsError; readonly changes: readonly FileChange[] };

/**
 * What rolling back did: `restored` when the sandbox was put back (to the call's checkpoint, or —
 * for a read-only tool that changed it — to the state after the last committed write).
 */
export interface RollbackReport {
  readonly restored: boolean;
  readonly violation: McpActorsError | undefined;
}
