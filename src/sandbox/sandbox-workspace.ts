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
 *
 * Whom a change is charged to (issue 15): the watcher's events are numbered, and each read-only
 * call notes the number it started at (`beginRead`). A change found after a read-only call is that
 * call's only if an event on the changed path (or a folder above it) came while the call ran; a
 * change made before it started — by a process outside the runtime, or a server that outlived its
 * call — is nobody's: it is left as it is and taken into the baseline when no reader is running.
 * A change under the destination of a link through which another sandbox's write escaped
 * (`escape-targets.ts`) is that writer's, never a reader's here. While a write runs, every path the
 * watcher names is looked at for a link resolving outside the sandbox, so a link made and removed
 * again within the call still fails it with SANDBOX_ESCAPE (best effort: see `escape-links.ts`).
 */
import type { RollbackConfinement } from './confined-rollback.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { CommitReport, FileChange, RollbackReport } from './change-reports.js';
import { CheckpointStore, type CheckpointSeed } from './checkpoint-store.js';
import { realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { escapingLinkAt, escapingLinks, mergeLinks, sandboxEscapeError, type EscapingLink } from './escape-links.js';
import { escapeTargetOf, noteEscapeTarget } from './escape-targets.js';
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
  /** Run rollbacks in bubblewrap, where they cannot reach outside the root (see `confined-rollback.ts`). */
  readonly confineRollback?: RollbackConfinement;
  /** What git already knows of the tree, for a new checkpoint store (see `Sandbox.checkpointSeed`). */
  readonly checkpointSeed?: CheckpointSeed | undefined;
  /** Told the changes of every committed write (a `Sandbox` attributes them: `noteCommitted`). */
  readonly onCommitted?: (changes: readonly FileChange[]) => void;
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
  /** Watcher events so far: the clock read-only calls are judged by. */
  private eventSeq = 0;
  /** The number of the last event on each path since the tree was last known clean (bounded). */
  private readonly lastEvent = new Map<string, number>();
  /** `lastEvent` lost track (too many paths, an event without a name): every change is anyone's. */
  private eventsLost = false;
  /** Read-only calls running: the event number each started at. */
  private readonly readerStarts = new Map<string, number>();
  /** Read-only calls charged with a violation whose rollback has not come yet. */
  private readonly blamed = new Set<string>();
  /** While a write runs: the links resolving outside that its sandbox held at some event. */
  private writeLinks: EscapingLink[] | undefined;
  private writeTool = 'the tool';
  private readonly realRoot: string;

  private constructor(
    readonly roots: WorkspaceRoots,
    readonly checkpoints: CheckpointStore,
    initialId: string,
    private readonly watcher: TreeWatcher | undefined,
  ) {
    this.rewriter = new SandboxPathRewriter({
      sandboxRoot: roots.root,
      hostRoot: roots.logicalRoot,
      privateDirs: privateDirsOf(roots, checkpoints),
    });
    this.initialId = initialId;
    this.baselineId = initialId;
    this.realRoot = realOr(roots.root);
  }

  /** One watcher event: numbered, remembered per path, and — while a write runs — looked at for an escaping link. */
  private onWatcherEvent(path: string | null): void {
    this.dirty = true;
    this.eventSeq += 1;
    if (path === null || (this.lastEvent.size >= MAX_TRACKED_PATHS && !this.lastEvent.has(path))) this.eventsLost = true;
    else this.lastEvent.set(path, this.eventSeq);
    if (this.writeLinks === undefined || path === null) return;
    const link = escapingLinkAt(this.roots.root, this.realRoot, path);
    if (link === undefined) return;
    if (!this.writeLinks.some((known) => known.path === link.path && known.target === link.target)) this.writeLinks.push(link);
    noteEscapeTarget(link.resolved, this.writeTool);
  }

  /** The tree is known to equal the baseline (or just became it): forget the events so far. */
  private markClean(): void {
    // Clean stays known only while the watcher reports every change (not broken, not paused by a flood).
    this.dirty = this.watcher === undefined || !this.watcher.watchesAll;
    this.lastEvent.clear();
    this.eventsLost = false;
  }

  /**
   * A read-only call is about to run: the changes it can be charged with are those the watcher
   * reports from now on. Call it before the tool is invoked; the verdict (`verifyReadOnly` or
   * `rollback`) ends it.
   */
  beginRead(callId: string): void {
    if (this.readerStarts.size >= MAX_TRACKED_READERS) this.readerStarts.delete(this.readerStarts.keys().next().value as string);
    this.readerStarts.set(callId, this.eventSeq);
  }

  /**
   * Of `changes`, those the read-only call that started at event `startedAt` may have made: an
   * event on the path or a folder above it came after the start, and the path is not where
   * another sandbox's write escaped to. Without a start (or with events lost) every change is.
   */
  private chargeable<T extends { readonly path: string }>(changes: readonly T[], startedAt: number | undefined): T[] {
    return changes.filter((change) => {
      if (escapeTargetOf(join(this.realRoot, change.path)) !== undefined) return false;
      if (startedAt === undefined || this.eventsLost) return true;
      let seen = false;
      const parts = change.path.split('/');
      for (let i = parts.length; i >= 1; i -= 1) {
        const seq = this.lastEvent.get(parts.slice(0, i).join('/'));
        if (seq === undefined) continue;
        seen = true;
        if (seq > startedAt) return true;
      }
      // No event names it (a change behind the watcher's back): it cannot be dated, so it may be this call's.
      return !seen;
    });
  }

  /**
   * Changes no running call can be charged with become part of the baseline, so the next readers
   * do not look at them again — only when this is the only reader, holding the lock exclusively
   * for the snapshot (granted at once, since no other reader holds it).
   */
  private async adoptForeignChanges(): Promise<void> {
    if (this.readerStarts.size > 0 || this.restoring || this.lock.state.readers !== 1 || this.lock.state.writer) return;
    const giveBack = await this.lock.upgrade(() => 1);
    try {
      const adopted = await this.checkpoints.checkpoint('changes made outside any call', this.changedPaths());
      this.baselineId = adopted.id;
      this.markClean();
    } finally {
      giveBack();
    }
  }

  /**
   * @example
   * await using sandbox = await Sandbox.create({ projectDir });
   * await using workspace = await SandboxWorkspace.open(sandbox);
   */
  static async open(roots: WorkspaceRoots): Promise<SandboxWorkspace> {
    // Reopening a sandbox's own store also finishes a rollback a crash interrupted.
    const checkpoints = await CheckpointStore.open({
      root: roots.root,
      ...(roots.checkpointsDir ? { storeDir: roots.checkpointsDir } : {}),
      ...(roots.confineRollback ? { confineRollback: roots.confineRollback } : {}),
      seed: roots.checkpointSeed,
    });
    const workspace: { current?: SandboxWorkspace } = {};
    // Watching starts before the baseline, so no change after the baseline's walk goes unreported.
    let watcher: TreeWatcher | undefined;
    try {
      watcher = TreeWatcher.open(checkpoints.root, {
        onEvent: (path) => workspace.current?.onWatcherEvent(path),
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
    workspace.current.markClean();
    return workspace.current;
  }

  /** A checkpoint before a call that may write. */
  async checkpoint(label?: string, toolName = 'the tool'): Promise<string> {
    const id = (await this.checkpoints.checkpoint(label, this.changedPaths())).id;
    // The write lock is held from here to its commit or rollback: links seen meanwhile are its.
    this.writeLinks = [];
    this.writeTool = toolName;
    return id;
  }

  /** After a write call: its changes, and the new baseline. */
  async commitWrite(checkpointId: string | undefined, toolName = 'the tool'): Promise<CommitReport> {
    // The call's own events must be in this checkpoint's changed paths, not the next one's.
    await settleWatcherEvents();
    const after = await this.checkpoints.checkpoint('after call', this.changedPaths());
    const seenDuring = this.writeLinks ?? [];
    this.writeLinks = undefined;
    const changes = checkpointId ? await this.checkpoints.changesBetween(checkpointId, after.id) : [];
    // Not committed: the caller rolls back to the call's checkpoint (the baseline stays).
    const left = await escapingLinks(this.roots.root, changes);
    for (const link of left) noteEscapeTarget(link.resolved, toolName);
    const escapes = mergeLinks(left, seenDuring);
    if (escapes.length > 0) return { ok: false, changes, violation: sandboxEscapeError(toolName, escapes) };
    this.baselineId = after.id;
    this.markClean();
    this.committed.push(...changes);
    this.roots.onCommitted?.(changes);
    return { ok: true, changes };
  }

  /** After a read-only call: was the sandbox left as it was? */
  async verifyReadOnly(toolName: string, callId?: string): Promise<CommitReport> {
    await settleWatcherEvents();
    const startedAt = this.endRead(callId);
    if (!this.dirty) return { ok: true, changes: [] };
    // A change already blamed on another read-only call is being undone: a reader that ran beside
    // it cannot be told apart from it by the tree, so it is not blamed a second time.
    if (this.violationsPending > 0) return { ok: true, changes: [] };
    const found = await this.checkpoints.changesSince(this.baselineId, this.changedPaths());
    if (found.length === 0) {
      this.markClean();
      return { ok: true, changes: [] };
    }
    if (this.violationsPending > 0) return { ok: true, changes: [] };
    const changes = this.chargeable(found, callId === undefined ? undefined : startedAt);
    if (changes.length === 0) {
      await this.adoptForeignChanges();
      return { ok: true, changes: [] };
    }
    this.violationsPending += 1;
    if (callId !== undefined) this.blamed.add(callId);
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

  /** The event number a read-only call started at (and it is over), if `beginRead` noted it. */
  private endRead(callId: string | undefined): number | undefined {
    if (callId === undefined) return undefined;
    const startedAt = this.readerStarts.get(callId);
    this.readerStarts.delete(callId);
    return startedAt;
  }

  /** Something may have changed the tree behind the watcher's back (a tool that outlived its call). */
  markDirty(): void {
    this.dirty = true;
    this.walkAll = true;
  }

  /** Back to a call's checkpoint, or — without one — to the baseline if the sandbox changed. */
  async rollback(checkpointId: string | undefined, callId?: string): Promise<RollbackReport> {
    if (checkpointId) {
      this.writeLinks = undefined;
      await this.checkpoints.rollback(checkpointId);
      return { restored: true, violation: undefined };
    }
    await settleWatcherEvents();
    const startedAt = this.endRead(callId);
    const wasBlamed = callId !== undefined && this.blamed.delete(callId);
    if (!this.dirty) {
      this.violationsPending = 0;
      return { restored: false, violation: undefined };
    }
    if (callId !== undefined && !wasBlamed) {
      // A read-only call that failed on its own: charged only with what it may have changed.
      const found = await this.checkpoints.changesSince(this.baselineId, this.changedPaths());
      if (this.chargeable(found, startedAt).length === 0) {
        if (found.length === 0) this.markClean();
        else if (this.violationsPending === 0) await this.adoptForeignChanges();
        return { restored: false, violation: undefined };
      }
    }
    const changes = await this.restoreBaseline();
    if (changes.length === 0) return { restored: false, violation: undefined };
    return {
      restored: true,
      violation: new McpActorsError(
        ErrorCode.CAPABILITY_VIOLATION,
        `a read-only call changed the sandbox (${changes.map((c) => c.path).join(', ')}); rolled back`,
        {
          details: { changes },
        },
      ),
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
          this.markClean();
          return changes;
        } finally {
          this.restoring = undefined;
          this.violationsPending = 0;
          this.blamed.clear();
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
      this.markClean();
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

const MAX_TRACKED_PATHS = 4_096;
const MAX_TRACKED_READERS = 1_024;

/**
 * What no result may name: the checkpoint store and, for a sandbox laid out by `Sandbox` (root and
 * checkpoints side by side in one temp dir), that temp dir.
 */
function privateDirsOf(roots: WorkspaceRoots, checkpoints: CheckpointStore): string[] {
  const dirs = [checkpoints.storeDir];
  if (roots.checkpointsDir !== undefined) {
    dirs.push(roots.checkpointsDir);
    const parent = dirname(resolve(roots.checkpointsDir));
    if (dirname(resolve(roots.root)) === parent) dirs.push(parent);
  }
  return dirs;
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
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
