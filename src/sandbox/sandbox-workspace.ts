/**
 * Everything a sandbox needs to run tool calls through the tool-call machine: the readers-writer
 * lock, the path rewriter, the checkpoint store, the baseline (the tree after the last committed
 * write), and a recursive file watcher that notices when a read-only call changed something.
 *
 * The watcher is a cheap trigger: when it fired, the tree is compared with the baseline (git's
 * stat cache makes that cost grow with the changed files), so late or spurious events never blame
 * a call for a change it did not make. Its events also tell each snapshot which paths to read
 * again (`changedPaths`), so a checkpoint costs what changed, not the size of the tree; when it is
 * unsure (see `tree-watcher.ts`) the snapshot walks everything.
 */
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { CommitReport, FileChange, RollbackReport } from '../tool-call/tool-call-io.js';
import { CheckpointStore } from './checkpoint-store.js';
import { escapingLinks, sandboxEscapeError } from './escape-links.js';
import { SandboxPathRewriter } from './path-rewriter.js';
import { ReadersWriterLock } from './readers-writer-lock.js';
import { TreeWatcher } from './tree-watcher.js';

export interface WorkspaceRoots {
  /** The sandbox root (what servers see). */
  readonly root: string;
  /** The project the sandbox stands for (what agents and results name). */
  readonly logicalRoot: string;
  /** Where to keep the checkpoints (a sandbox's own `checkpointsDir`, which survives a crash); default a temp dir. */
  readonly checkpointsDir?: string;
}

export class SandboxWorkspace implements AsyncDisposable {
  readonly lock = new ReadersWriterLock();
  readonly rewriter: SandboxPathRewriter;
  private baselineId: string;
  private readonly initialId: string;
  private dirty = false;
  private restoring: Promise<readonly FileChange[]> | undefined;
  private restoreSharers = 0;
  /** Violations reported and not yet undone. */
  private violationsPending = 0;
  /** The next snapshot ignores the watcher's changed paths (see `markDirty`). */
  private walkAll = false;
  private readonly committed: FileChange[] = [];

  private constructor(
    readonly roots: WorkspaceRoots,
    readonly checkpoints: CheckpointStore,
    initialId: string,
    private readonly watcher: TreeWatcher | undefined,
  ) {
    this.rewriter = new SandboxPathRewriter({ sandboxRoot: roots.root, hostRoot: roots.logicalRoot });
    this.initialId = initialId;
    this.baselineId = initialId;
  }

  /**
   * @example
   * await using sandbox = await Sandbox.create({ projectDir });
   * await using workspace = await SandboxWorkspace.open(sandbox);
   */
  static async open(roots: WorkspaceRoots): Promise<SandboxWorkspace> {
    // Reopening a sandbox's own store also finishes a rollback a crash interrupted.
    const checkpoints = await CheckpointStore.open({ root: roots.root, ...(roots.checkpointsDir ? { storeDir: roots.checkpointsDir } : {}) });
    const workspace: { current?: SandboxWorkspace } = {};
    // Watching starts before the baseline, so no change after the baseline's walk goes unreported.
    let watcher: TreeWatcher | undefined;
    try {
      watcher = TreeWatcher.open(checkpoints.root, {
        onEvent: () => {
          if (workspace.current) workspace.current.dirty = true;
        },
      });
    } catch {
      watcher = undefined; // without a watcher every read-only call is verified (dirty stays true) and every snapshot walks
    }
    let initial;
    try {
      initial = await checkpoints.checkpoint('baseline', { changedPaths: watcher?.take() });
    } catch (error) {
      watcher?.close();
      await checkpoints.dispose().catch(() => undefined);
      throw error;
    }
    workspace.current = new SandboxWorkspace(roots, checkpoints, initial.id, watcher);
    if (!watcher) workspace.current.dirty = true;
    return workspace.current;
  }

  /** A checkpoint before a call that may write. */
  async checkpoint(label?: string): Promise<string> {
    return (await this.checkpoints.checkpoint(label, this.changedPaths())).id;
  }

  /** After a write call: its changes, and the new baseline. */
  async commitWrite(checkpointId: string | undefined, toolName = 'the tool'): Promise<CommitReport> {
    // The call's own events must be in this checkpoint's changed paths, not the next one's.
    await settleWatcherEvents();
    const after = await this.checkpoints.checkpoint('after call', this.changedPaths());
    const changes = checkpointId ? await this.checkpoints.changesBetween(checkpointId, after.id) : [];
    // Not committed: the caller rolls back to the call's checkpoint (the baseline stays).
    const escapes = await escapingLinks(this.roots.root, changes);
    if (escapes.length > 0) return { ok: false, changes, violation: sandboxEscapeError(toolName, escapes) };
    this.baselineId = after.id;
    this.dirty = this.watcher === undefined;
    this.committed.push(...changes);
    return { ok: true, changes };
  }

  /** After a read-only call: was the sandbox left as it was? */
  async verifyReadOnly(toolName: string): Promise<CommitReport> {
    await settleWatcherEvents();
    if (!this.dirty) return { ok: true, changes: [] };
    // A change already blamed on another read-only call is being undone: a reader that ran beside
    // it cannot be told apart from it by the tree, so it is not blamed a second time.
    if (this.violationsPending > 0) return { ok: true, changes: [] };
    const changes = await this.checkpoints.changesSince(this.baselineId, this.changedPaths());
    if (changes.length === 0) {
      this.dirty = this.watcher === undefined;
      return { ok: true, changes: [] };
    }
    if (this.violationsPending > 0) return { ok: true, changes: [] };
    this.violationsPending += 1;
    const escapes = await escapingLinks(this.roots.root, changes);
    if (escapes.length > 0) return { ok: false, changes, violation: sandboxEscapeError(toolName, escapes) };
    return {
      ok: false,
      changes,
      violation: new McpActorsError(
        ErrorCode.CAPABILITY_VIOLATION,
        `"${toolName}" is classified read-only but the sandbox changed while it ran (${changes.map((c) => `${c.kind} ${c.path}`).join(', ')}); ` +
          'the change was rolled back. If the tool really writes, override its capabilities (read_only: false)',
        { details: { tool: toolName, changes } },
      ),
    };
  }

  /** Something may have changed the tree behind the watcher's back (a tool that outlived its call). */
  markDirty(): void {
    this.dirty = true;
    this.walkAll = true;
  }

  /** Back to a call's checkpoint, or — without one — to the baseline if the sandbox changed. */
  async rollback(checkpointId: string | undefined): Promise<RollbackReport> {
    if (checkpointId) {
      await this.checkpoints.rollback(checkpointId);
      return { restored: true, violation: undefined };
    }
    await settleWatcherEvents();
    if (!this.dirty) {
      this.violationsPending = 0;
      return { restored: false, violation: undefined };
    }
    const changes = await this.restoreBaseline();
    if (changes.length === 0) return { restored: false, violation: undefined };
    return {
      restored: true,
      violation: new McpActorsError(ErrorCode.CAPABILITY_VIOLATION, `a read-only call changed the sandbox (${changes.map((c) => c.path).join(', ')}); rolled back`, {
        details: { changes },
      }),
    };
  }

  /**
   * Restores the baseline on behalf of a read-only call (which holds a read lock): the restore waits
   * until no other reader is reading — readers that need the same restore wait on it together — and
   * runs with the lock held exclusively, so nobody reads a half-restored tree.
   */
  private async restoreBaseline(): Promise<readonly FileChange[]> {
    this.restoreSharers += 1;
    this.lock.recheck();
    try {
      this.restoring ??= (async () => {
        const giveBack = await this.lock.upgrade(() => this.restoreSharers);
        try {
          const changes = await this.checkpoints.changesSince(this.baselineId, this.changedPaths());
          if (changes.length > 0) await this.checkpoints.rollback(this.baselineId);
          return changes;
        } finally {
          this.restoring = undefined;
          this.violationsPending = 0;
          giveBack();
        }
      })();
      return await this.restoring;
    } finally {
      this.restoreSharers -= 1;
    }
  }

  /** Back to any earlier checkpoint (the plan's undo); it becomes the baseline. */
  async rollbackTo(checkpointId: string = this.initialId): Promise<void> {
    const release = await this.lock.acquire('write');
    try {
      await this.checkpoints.rollback(checkpointId);
      this.baselineId = checkpointId;
    } finally {
      release();
    }
  }

  /** Every change committed so far, one entry per call and file (a plan's change set is their sum). */
  committedChanges(): readonly FileChange[] {
    return this.committed;
  }

  /** The net change set since the workspace was opened. */
  async changes(): Promise<FileChange[]> {
    return this.checkpoints.changesSince(this.initialId, this.changedPaths());
  }

  /**
   * The paths changed since the store's last snapshot, for the snapshot about to be queued (take it
   * in the same synchronous step as the call to the store, so the sets follow the store's queue).
   */
  private changedPaths(): { changedPaths: string[] | undefined } {
    const changedPaths = this.watcher?.take();
    if (!this.walkAll) return { changedPaths };
    this.walkAll = false;
    return { changedPaths: undefined };
  }

  async dispose(): Promise<void> {
    this.watcher?.close();
    await this.checkpoints.dispose();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}

/**
 * Lets file-system events the kernel already queued reach the watcher before it is consulted: the
 * tool wrote before it answered, so its events are queued by now; two turns of the event loop let
 * libuv's poll phase read them (the first may already be past it).
 */
async function settleWatcherEvents(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
}
