/**
 * A readers-writer lock per sandbox: read-only calls may run together, a call that may write runs
 * alone. Fair in arrival order — a waiting writer holds back readers that come after it, so
 * writers are never starved — which makes concurrent outcomes equal to some serial order.
 */

export type LockMode = 'read' | 'write';

interface Waiter {
  readonly mode: LockMode | 'upgrade';
  readonly grant: () => void;
  /** For an upgrade: how many of the current readers take part in it (they wait for it, holding their reads). */
  readonly sharers?: () => number;
}

export class ReadersWriterLock {
  private readers = 0;
  private writer = false;
  private readonly queue: Waiter[] = [];

  /** Resolves with a release function once the lock is held in `mode`. */
  acquire(mode: LockMode, signal?: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      let granted = false;
      const waiter: Waiter = {
        mode,
        grant: () => {
          granted = true;
          signal?.removeEventListener('abort', onAbort);
          if (mode === 'read') this.readers += 1;
          else this.writer = true;
          resolve(this.releaser(mode));
        },
      };
      const onAbort = (): void => {
        if (granted) return;
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
        // The abort's reason as given, as the platform's abortable APIs reject with it.
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- an abort reason is the caller's, of any type
        reject(signal?.reason ?? new Error('aborted while waiting for the sandbox lock'));
        this.drain();
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
      this.drain();
    });
  }

  /**
   * For holders of read locks that must change the tree (restoring it after a read-only tool
   * wrote): waits until every reader still holding a read takes part (`sharers()` of them wait on
   * this upgrade, holding their reads), then holds the lock exclusively — no other reader or writer
   * gets in — until the returned function gives it back. It goes ahead of every waiter. Only one
   * upgrade may be pending at a time: share it (see SandboxWorkspace) rather than upgrade twice.
   */
  upgrade(sharers: () => number = () => 1): Promise<() => void> {
    return new Promise((resolve) => {
      this.queue.unshift({
        mode: 'upgrade',
        sharers,
        grant: () => {
          this.writer = true;
          let given = false;
          resolve(() => {
            if (given) return;
            given = true;
            this.writer = false;
            this.drain();
          });
        },
      });
      this.drain();
    });
  }

  /** Looks at the queue again (when what a pending upgrade waits for may have changed). */
  recheck(): void {
    this.drain();
  }

  /** Whether a writer holds the lock or readers do. */
  get state(): { readonly readers: number; readonly writer: boolean; readonly waiting: number } {
    return { readers: this.readers, writer: this.writer, waiting: this.queue.length };
  }

  private releaser(mode: LockMode): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (mode === 'read') this.readers -= 1;
      else this.writer = false;
      this.drain();
    };
  }

  private drain(): void {
    while (!this.writer) {
      const next = this.queue[0];
      if (next === undefined) return;
      if (next.mode === 'upgrade') {
        if (this.readers > (next.sharers?.() ?? 1)) return;
        this.queue.shift();
        next.grant();
        return;
      }
      if (next.mode === 'write' && this.readers > 0) return;
      this.queue.shift();
      next.grant();
      if (next.mode === 'write') return;
    }
  }
}
