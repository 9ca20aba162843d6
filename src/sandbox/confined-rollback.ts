/**
 * Rollbacks run where they cannot reach outside the tree they restore. git's checkout and the
 * restore steps work on paths: between a look at an entry and the write or removal that follows,
 * another process (a confined server that goes on running after its call) can swap a directory
 * for a symlink to any host folder, and git's `remove_subtree` or a recursive `rm` then deletes what
 * is inside that folder. Measured here (test/confine/rollback-race.race.ts): against an attacker
 * that swaps a directory and a link to another folder atomically, a store's rollbacks run in the
 * host deleted a file in that folder within 10-248 rollbacks; confined, 1,000 deleted nothing.
 *
 * So, wherever bubblewrap works, a store's rollbacks run in a worker of its own
 * (`confined-rollback.mjs`) under bwrap: the whole host read-only, only the tree and the store
 * writable, no network. An escape through a swapped link fails there with EROFS, a concurrent
 * change, and the rollback runs again. The worker starts at the store's first rollback (one bwrap
 * and one Node start, about 0.1-0.2 s), ends after 30 s without one (an idle Node costs tens of MB)
 * or when the store is disposed, and is killed with its host (bwrap's --die-with-parent, and the
 * reaper, which tracks its group). It gets only the environment git needs, never the host's secrets.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { READ_ONLY_HOST } from '../process/confinement/bwrap-command.js';
import { trackGroup, untrackGroup } from '../process/process-groups.js';

/** Where rollbacks are confined: the `bwrap` found by the confinement probe. */
export interface RollbackConfinement {
  readonly bwrap: string;
  /** How long the worker waits for the next rollback before it ends. Default 30 s. */
  readonly idleMs?: number;
}

/** The worker's answer: done, or why not (its error's message, codes and details). */
export type ConfinedRollbackResult =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly message: string;
      readonly codes: readonly string[];
      readonly details?: Readonly<Record<string, unknown>>;
    };

const SCRIPT = fileURLToPath(new URL('./confined-rollback.mjs', import.meta.url));
const IDLE_MS = 30_000;
/** What the worker's git and Node need of the host's environment (git's own is set by the store). */
const PASSED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ'];

/** bwrap's options for the worker's box: everything read-only but `root` and `storeDir`, no network. Pure. */
export function rollbackBoxArgs(root: string, storeDir: string): string[] {
  return [...READ_ONLY_HOST, '--unshare-net', '--bind', root, root, '--bind', storeDir, storeDir];
}

/** The worker's whole bwrap command line. Pure. */
export function confinedRollbackArgs(root: string, storeDir: string, node: string = process.execPath): string[] {
  return [...rollbackBoxArgs(root, storeDir), '--', node, SCRIPT, root, storeDir];
}

/**
 * One store's confined worker. `finish()` asks it to finish the journaled rollback; answers come
 * in order. A worker that died is started again by the next `finish()`.
 *
 * @example
 * const worker = new ConfinedRollbackWorker({ bwrap: '/usr/bin/bwrap' }, store.root, store.storeDir);
 * const result = await worker.finish(); // after writing the journal
 * worker.close();
 */
export class ConfinedRollbackWorker {
  readonly #confinement: RollbackConfinement;
  readonly #root: string;
  readonly #storeDir: string;
  #child: ChildProcess | undefined;
  #waiting: ((line: string | Error) => void)[] = [];
  #tail = '';
  #idle: NodeJS.Timeout | undefined;

  constructor(confinement: RollbackConfinement, root: string, storeDir: string) {
    this.#confinement = confinement;
    this.#root = root;
    this.#storeDir = storeDir;
  }

  async finish(): Promise<ConfinedRollbackResult> {
    clearTimeout(this.#idle);
    const child = this.#child ?? (await this.#start());
    const answer = this.#next();
    child.stdin?.write('rollback\n');
    // Only a request in flight keeps the host's event loop alive; an idle worker never does.
    holdLoop(child, true);
    let line: string;
    try {
      line = await answer;
    } finally {
      holdLoop(child, false);
      this.#idle = setTimeout(() => this.close(), this.#confinement.idleMs ?? IDLE_MS).unref();
    }
    try {
      return JSON.parse(line) as ConfinedRollbackResult;
    } catch {
      return { ok: false, message: `the confined rollback worker answered ${JSON.stringify(line.slice(0, 200))}`, codes: [] };
    }
  }

  /** Ends the worker (its stdin, then its group). */
  close(): void {
    clearTimeout(this.#idle);
    const child = this.#child;
    this.#child = undefined;
    if (!child) return;
    child.stdin?.end();
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }

  #next(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.#waiting.push((line) => (line instanceof Error ? reject(line) : resolve(line)));
    });
  }

  async #start(): Promise<ChildProcess> {
    // Typed with its streams nullable: spawn returns without them when out of file descriptors.
    const child: ChildProcess = spawn(this.#confinement.bwrap, confinedRollbackArgs(this.#root, this.#storeDir), {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      // No reaper of its own: the worker and its git die with bwrap, which dies with this process.
      env: {
        ...Object.fromEntries(PASSED_ENV.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]]]))),
        MCP_ACTORS_NO_REAPER: '1',
      },
    });
    this.#child = child;
    const pid = child.pid;
    if (pid !== undefined) trackGroup(pid);
    child.stderr?.on('data', (chunk: Buffer) => {
      this.#tail = (this.#tail + chunk.toString('utf8')).slice(-2_000);
    });
    child.stdin?.on('error', () => {
      // the worker died: 'exit' below answers every waiting request
    });
    if (child.stdout === null)
      throw new Error(`the confined rollback worker (${this.#confinement.bwrap}) has no stdout: no file descriptors left`);
    createInterface({ input: child.stdout }).on('line', (line) => this.#waiting.shift()?.(line));
    const gone = (why: string): void => {
      if (pid !== undefined) untrackGroup(pid);
      if (this.#child === child) this.#child = undefined;
      const error = new Error(
        `the confined rollback worker (${this.#confinement.bwrap}) ${why}${this.#tail ? `: ${this.#tail.trim().slice(-500)}` : ''}`,
      );
      for (const waiting of this.#waiting.splice(0)) waiting(error);
    };
    child.on('error', (error) => gone(`could not run: ${error.message}`));
    child.on('exit', (code, signal) => gone(signal ? `was killed by ${signal}` : `exited with ${code}`));
    const ready = await this.#next();
    if (!ready.includes('"ready"')) {
      this.close();
      throw new Error(`the confined rollback worker did not start: ${ready.slice(0, 200)}`);
    }
    holdLoop(child, false);
    return child;
  }
}

function holdLoop(child: ChildProcess, hold: boolean): void {
  for (const handle of [child, child.stdin, child.stdout, child.stderr] as ({ ref?: () => void; unref?: () => void } | null)[]) {
    if (hold) handle?.ref?.();
    else handle?.unref?.();
  }
}
