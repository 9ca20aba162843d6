/**
 * Everything a sandbox needs to run tool calls through the tool-call machine: the readers-writer
 * lock, the path rewriter, the checkpoint store, the baseline (the tree after the last committed
 * write), and a recursive file watcher that notices when a read-only call changed something.
 *
 * The watcher is only a cheap trigger: when it fired, the tree is compared with the baseline
 * (git's stat cache makes that cost grow with the changed files), so late or spurious events
 * never blame a call for a change it did not make.
 */
import { watch, type FSWatcher } from 'node:fs';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { CommitReport, FileChange, RollbackReport } from '../machines/tool-call-io.js';
import { CheckpointStore } from './checkpoint-store.js';
import { SandboxPathRewriter } from './path-rewriter.js';
import { ReadersWriterLock } from './readers-writer-lock.js';

export interface WorkspaceRoots {
  /** The sandbox root (what servers see). */
  readonly root: string;
  /** The project the sandbox stands for (what agents and results name). */
  readonly logicalRoot: string;
}

export class SandboxWorkspace implements AsyncDisposable {
  readonly lock = new ReadersWriterLock();
  readonly rewriter: SandboxPathRewriter;
  private baselineId: string;
  private readonly initialId: string;
  private dirty = false;
  private readonly committed: FileChange[] = [];

  private constructor(
    readonly roots: WorkspaceRoots,
    readonly checkpoints: CheckpointStore,
    initialId: string,
    private readonly watcher: FSWatcher | undefined,
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
    const checkpoints = await CheckpointStore.open({ root: roots.root });
    let initial;
    try {
      initial = await checkpoints.checkpoint('baseline');
    } catch (error) {
      await checkpoints.dispose().catch(() => undefined);
      throw error;
    }
    let watcher: FSWatcher | undefined;
    const workspace: { current?: SandboxWorkspace } = {};
    try {
      watcher = watch(roots.root, { recursive: true, persistent: false }, () => {
        if (workspace.current) workspace.current.dirty = true;
      });
      watcher.on('error', () => {
        if (workspace.current) workspace.current.dirty = true;
      });
    } catch {
      watcher = undefined; // without a watcher every read-only call is verified (dirty stays true)
    }
    workspace.current = new SandboxWorkspace(roots, checkpoints, initial.id, watcher);
    if (!watcher) workspace.current.dirty = true;
    return workspace.current;
  }

  /** A checkpoint before a call that may write. */
  async checkpoint(label?: string): Promise<string> {
    return (await this.checkpoints.checkpoint(label)).id;
  }

  /** After a write call: its changes, and the new baseline. */
  async commitWrite(checkpointId: string | undefined): Promise<CommitReport> {
    const after = await this.checkpoints.checkpoint('after call');
    const changes = checkpointId ? await this.checkpoints.changesBetween(checkpointId, after.id) : [];
    this.baselineId = after.id;
    this.dirty = this.watcher === undefined;
    this.committed.push(...changes);
    return { ok: true, changes };
  }

  /** After a read-only call: was the sandbox left as it was? */
  async verifyReadOnly(toolName: string): Promise<CommitReport> {
    await settleWatcherEvents();
    if (!this.dirty) return { ok: true, changes: [] };
    const changes = await this.checkpoints.changesSince(this.baselineId);
    if (changes.length === 0) {
      this.dirty = this.watcher === undefined;
      return { ok: true, changes: [] };
    }
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
  }

  /** Back to a call's checkpoint, or — without one — to the baseline if the sandbox changed. */
  async rollback(checkpointId: string | undefined): Promise<RollbackReport> {
    if (checkpointId) {
      await this.checkpoints.rollback(checkpointId);
      return { restored: true, violation: undefined };
    }
    await settleWatcherEvents();
    if (!this.dirty) return { restored: false, violation: undefined };
    const changes = await this.checkpoints.changesSince(this.baselineId);
    if (changes.length === 0) return { restored: false, violation: undefined };
    await this.checkpoints.rollback(this.baselineId);
    return {
      restored: true,
      violation: new McpActorsError(ErrorCode.CAPABILITY_VIOLATION, `a read-only call changed the sandbox (${changes.map((c) => c.path).join(', ')}); rolled back`, {
        details: { changes },
      }),
    };
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
    return this.checkpoints.changesSince(this.initialId);
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
