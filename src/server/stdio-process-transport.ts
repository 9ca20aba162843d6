/**
 * An MCP `Transport` over a child process's stdin/stdout that owns the process and its whole
 * process group. Ours rather than the SDK's `StdioClientTransport` because that one, behind a
 * forking launcher (`sh -c`, `npx`, `uv run`), never fires `onclose` after the server is killed,
 * leaves the call in flight hanging, and leaves the grandchild alive on `close()`.
 *
 * - The child is spawned `detached`, so it leads its own process group (pgid = pid); every signal
 *   goes to the group, and the group is tracked so the host's exit hook kills it too.
 * - A crash is the leader's `'exit'` event, not the end of stdout: a grandchild holding stdout
 *   would keep the stream open forever. When the leader exits, for any reason, the rest of the
 *   group is SIGKILLed, and `exited` resolves and `onclose` fires once the group is empty — so the
 *   SDK Client rejects the calls in flight at once instead of hanging.
 * - Spawned with Node's `child_process.spawn` (not execa: see `#spawn`); every spawn failure,
 *   EMFILE and ENOMEM included, is a SPAWN_FAILED rejection of `start()`, never an unhandled event.
 * - stdout is framed per line with a cap per message (`maxMessageBytes`); stderr is kept as a
 *   bounded tail for error messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { parseMessageLine } from './json-rpc-line.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpActorsError, messageOf } from '../errors/index.js';
import { describeExit, type ProcessExit, type StopStep } from '../process/process-exit.js';
import { spawnFailedError } from './spawn-failure.js';
import { killGroup, trackGroup, untrackGroup } from '../process/process-groups.js';
import { groupMembers } from '../process/process-table.js';
import { LineReader } from './line-reader.js';
import { StderrTail } from './stderr-tail.js';
import { confineCommand, type ConfinementPlan } from '../process/confinement/bwrap-command.js';
import { withDeadline } from '../timing/deadline.js';

export interface StdioProcessOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The complete environment of the child (see `serverEnvironment`); nothing else is inherited. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string | undefined;
  /** Budget of `close()`: half waiting after stdin is closed, half after SIGTERM, then SIGKILL. */
  readonly shutdownTimeoutMs: number;
  /** A single stdout line longer than this closes the connection with MESSAGE_TOO_LARGE. */
  readonly maxMessageBytes: number;
  /** How many of the last stderr lines to keep. */
  readonly stderrLines: number;
  /** Used in messages only. */
  readonly serverName: string;
  /** When set, the command is run inside bubblewrap as the plan says (see `confinement/`). */
  readonly confinement?: ConfinementPlan | undefined;
}

export { describeExit, type ProcessExit, type StopStep } from '../process/process-exit.js';

export interface StdioDiagnostics {
  readonly nonJsonLines: number;
  readonly lastNonJsonLine?: string;
  readonly stderrTail: readonly string[];
}

/** How long to wait, after the leader exited and the group was SIGKILLed, for the group to be empty. */
const GROUP_EMPTY_TIMEOUT_MS = 2_000;
const GROUP_POLL_MS = 20;
/**
 * How long to wait, once the group is empty, for stdout and stderr to reach EOF: Node reports
 * `'exit'` before the pipes are drained, and the last response and the crash's stderr are in them.
 * Only a process that escaped the group (setsid) can hold them longer.
 */
const STREAM_DRAIN_TIMEOUT_MS = 250;

export class StdioProcessTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: Transport['onmessage'];

  /** Resolves once the group leader has exited and the group was cleaned up; never rejects. */
  readonly exited: Promise<ProcessExit>;

  readonly #options: StdioProcessOptions;
  readonly #reader: LineReader<JSONRPCMessage>;
  readonly #stderr: StderrTail;
  #resolveExited!: (exit: ProcessExit) => void;
  #resolveLeaderExited!: () => void;
  readonly #leaderExited: Promise<void>;

  #startPromise: Promise<void> | undefined;
  #closePromise: Promise<void> | undefined;
  #stopPromise: Promise<void> | undefined;
  #stdin: Writable | null = null;
  /** The wait for `'drain'` that every write made while the pipe is full shares. */
  #drainWait: Promise<void> | undefined;
  /** Whether stdin is corked until the current tick's sends are all written (see `send`). */
  #corked = false;
  readonly #uncork = (stdin: Writable): void => {
    this.#corked = false;
    stdin.uncork();
  };
  #stdout: Readable | null = null;
  #stderrStream: Readable | null = null;
  #streamsDone: Promise<unknown> = Promise.resolve();
  #pid: number | undefined;
  #leaderExit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #exit: ProcessExit | undefined;
  #closeRequested = false;
  #stopStep: StopStep | undefined;
  #reason: McpActorsError | undefined;
  #oncloseFired = false;

  /**
   * @example
   * const transport = new StdioProcessTransport({
   *   command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything', 'stdio'],
   *   env: serverEnvironment({}), shutdownTimeoutMs: 4_000, maxMessageBytes: 16 * 1024 * 1024,
   *   stderrLines: 40, serverName: 'everything',
   * });
   * await client.connect(transport); // the Client calls start()
   * await client.close();            // close(): stdin EOF, SIGTERM, SIGKILL to the group
   */
  constructor(options: StdioProcessOptions) {
    this.#options = options;
    this.#reader = new LineReader({ maxLineBytes: options.maxMessageBytes, parse: parseMessageLine });
    this.#stderr = new StderrTail(options.stderrLines);
    this.exited = new Promise<ProcessExit>((resolve) => {
      this.#resolveExited = resolve;
    });
    this.#leaderExited = new Promise<void>((resolve) => {
      this.#resolveLeaderExited = resolve;
    });
  }

  /** The group leader's pid (also the pgid), once spawned. */
  get pid(): number | undefined {
    return this.#pid;
  }

  /** How the process ended, once `exited` has resolved. */
  get exit(): ProcessExit | undefined {
    return this.#exit;
  }

  diagnostics(): StdioDiagnostics {
    const lastNonJsonLine = this.#reader.lastInvalidLine;
    return {
      nonJsonLines: this.#reader.invalidLines,
      ...(lastNonJsonLine === undefined ? {} : { lastNonJsonLine }),
      stderrTail: this.#stderr.lines(),
    };
  }

  /**
   * Spawns the process once; resolves on its `'spawn'` event. Rejects with SPAWN_FAILED when the
   * command cannot be started (not found, not executable, bad cwd). A failed spawn resolves
   * `exited` (with that error as `reason`) but does not fire `onclose`; `close()` does.
   */
  start(): Promise<void> {
    if (this.#startPromise) return this.#startPromise;
    if (this.#closePromise) {
      return Promise.reject(
        new McpActorsError(
          ErrorCode.NOT_CONNECTED,
          `server "${this.#options.serverName}": the transport was closed; create a new one to start the server again`,
        ),
      );
    }
    this.#startPromise = this.#spawn();
    return this.#startPromise;
  }

  /** Writes one message; waits for `'drain'` when the pipe is full. */
  send(message: JSONRPCMessage): Promise<void> {
    const name = this.#options.serverName;
    const stdin = this.#stdin;
    if (this.#pid === undefined || stdin === null) {
      return Promise.reject(new McpActorsError(ErrorCode.NOT_CONNECTED, `server "${name}" is not started: call start() before send()`));
    }
    const lost = (cause?: unknown): McpActorsError =>
      new McpActorsError(
        ErrorCode.CONNECTION_LOST,
        this.#leaderExit
          ? `cannot send to server "${name}": its process has exited`
          : `cannot send to server "${name}": its stdin is closed (the server is stopping)`,
        cause === undefined ? {} : { cause },
      );
    if (this.#leaderExit || stdin.destroyed || stdin.writableEnded) return Promise.reject(lost());

    const data = serializeMessage(message);
    // Messages sent in one tick leave in one write (writev): with calls in flight, the answers to
    // several arrive together and each sends the next request; one syscall and one wake-up of the
    // server then carry them all instead of one each. end() and destroy() flush or drop the rest.
    if (!this.#corked) {
      this.#corked = true;
      stdin.cork();
      process.nextTick(this.#uncork, stdin);
    }
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const settle = (error?: unknown): void => {
        if (settled) return;
        settled = true;
        if (error === undefined) resolve();
        else reject(lost(error));
      };
      // EPIPE and ERR_STREAM_DESTROYED arrive here (and on the stream's 'error', which is
      // listened to): the exit path reports the process's end; this send just fails.
      const flushed = stdin.write(data, (error) => {
        if (error) settle(error);
      });
      if (flushed) {
        settle();
        return;
      }
      this.#drained(stdin).then(() => settle(), settle);
    });
  }

  /**
   * One wait for `'drain'` shared by every write made while the pipe is full: a listener pair
   * per pending write would pile up on the stream (and warn past ten) under a burst of calls.
   */
  #drained(stdin: Writable): Promise<void> {
    this.#drainWait ??= new Promise<void>((resolve, reject) => {
      const done = (error?: Error): void => {
        stdin.off('drain', onDrain);
        stdin.off('close', onClose);
        this.#drainWait = undefined;
        if (error === undefined) resolve();
        else reject(error);
      };
      const onDrain = (): void => done();
      const onClose = (): void => done(new Error('stdin closed before the message was written'));
      stdin.once('drain', onDrain);
      stdin.once('close', onClose);
    });
    return this.#drainWait;
  }

  /**
   * Stops the process and resolves when no process of its group is left. Idempotent; concurrent
   * calls share one promise. The escalation splits `shutdownTimeoutMs` in two halves:
   * 1. end stdin (the MCP stdio way of asking a server to exit), wait up to the first half;
   * 2. SIGTERM to the group, wait up to the second half;
   * 3. SIGKILL to the group, wait for the leader.
   * Once the leader has exited, whatever is left of the group is SIGKILLed (see `exited`).
   */
  close(): Promise<void> {
    this.#closePromise ??= this.#close();
    return this.#closePromise;
  }

  /**
   * SIGKILL to the whole group at once, with no clean stop sequence: for a server that broke its
   * contract (a start or ping timeout). Resolves, like `close()`, when no process of the group is
   * left; the exit's `stopStep` is `SIGKILL`.
   */
  async kill(): Promise<void> {
    if (!this.#leaderExit) this.#closeRequested = true;
    if (this.#startPromise !== undefined) {
      const spawned = await this.#startPromise.then(
        () => true,
        () => false,
      );
      if (spawned) this.#killNow();
    }
    await this.close();
  }

  #killNow(): void {
    const pid = this.#pid;
    if (pid === undefined || this.#leaderExit || this.#stopStep === 'SIGKILL') return;
    this.#stopStep = 'SIGKILL';
    killGroup(pid, 'SIGKILL');
  }

  async #close(): Promise<void> {
    if (!this.#leaderExit) this.#closeRequested = true;
    if (this.#startPromise === undefined) {
      this.#finish({ code: null, signal: null, normal: false, stderrTail: [], requested: true });
      return;
    }
    try {
      await this.#startPromise;
    } catch {
      // The spawn failed: `exited` is resolved already and there is nothing to stop.
      this.#fireOnclose();
      return;
    }
    await this.#stop();
    await this.exited;
    this.#fireOnclose();
  }

  async #spawn(): Promise<void> {
    const { cwd, confinement } = this.#options;
    const { command, args, env } = confinement
      ? confineCommand(this.#options.command, this.#options.args, this.#options.env, confinement)
      : this.#options;
    let child: ChildProcess;
    try {
      // Node's own spawn, not execa: a server process is a long-lived pipe pair we read and write
      // ourselves, so execa's result promise, buffering and stream helpers buy nothing here and cost
      // about 45 KiB of host heap per child (child_process: about 9 KiB). ENOMEM and other errors
      // the kernel reports at once are thrown here; EMFILE, ENFILE, EAGAIN, ENOENT and EACCES come
      // as an 'error' event on the next tick (with EMFILE/ENFILE no stdio is set up at all).
      child = spawn(command, [...args], {
        detached: true,
        env: { ...env },
        ...(cwd === undefined ? {} : { cwd }),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (error) {
      throw await this.#spawnFailed(error);
    }
    // Tracked as soon as the pid exists (the 'spawn' event comes a tick later), so the host's exit
    // hook covers the group from the start.
    const spawnedPid = child.pid;
    if (spawnedPid !== undefined) trackGroup(spawnedPid);

    await new Promise<void>((resolve, reject) => {
      let spawned = false;
      // Listened to before anything else can fail: an 'error' without a listener would crash the host.
      child.on('error', (error: Error) => {
        if (spawned) this.#report(error);
        else {
          if (spawnedPid !== undefined) untrackGroup(spawnedPid);
          this.#spawnFailed(error).then(reject, reject);
        }
      });
      child.once('exit', (code: number | null, signal: NodeJS.Signals | null) => {
        this.#onLeaderExit(code, signal);
      });
      this.#stdin = child.stdin;
      this.#stdout = child.stdout;
      this.#stderrStream = child.stderr;
      // Stream errors (EPIPE on stdin after the child died, a reset pipe) end up in the exit path.
      this.#stdin?.on('error', noop);
      this.#stdout?.on('error', noop);
      this.#stderrStream?.on('error', noop);
      child.once('spawn', () => {
        spawned = true;
        this.#pid = spawnedPid ?? child.pid;
        if (spawnedPid === undefined && this.#pid !== undefined) trackGroup(this.#pid);
        this.#wireStreams();
        resolve();
      });
    });
  }

  #wireStreams(): void {
    this.#stdout?.on('data', (chunk: Buffer | string) => this.#onStdout(chunk));
    this.#stderrStream?.on('data', (chunk: Buffer | string) => this.#stderr.push(chunk));
    this.#streamsDone = Promise.all([streamEnded(this.#stdout), streamEnded(this.#stderrStream)]);
  }

  #onStdout(chunk: Buffer | string): void {
    for (const event of this.#reader.push(chunk)) {
      // After a too-large message the connection is over: the rest is drained and dropped, so a
      // server writing on while it is being stopped does not block on a full pipe.
      if (this.#reason) return;
      switch (event.kind) {
        case 'message':
          try {
            this.onmessage?.(event.message);
          } catch (error) {
            this.#report(error);
          }
          break;
        case 'invalid':
          this.#report(
            new McpActorsError(
              ErrorCode.PROTOCOL_ERROR,
              `server "${this.#options.serverName}" wrote a line to stdout that is not a JSON-RPC message; it was ignored ` +
                `(${this.#reader.invalidLines} so far). Servers must log to stderr, not stdout: ${event.line}`,
              {
                cause: event.error,
                details: { serverName: this.#options.serverName, line: event.line, nonJsonLines: this.#reader.invalidLines, fatal: false },
              },
            ),
          );
          break;
        case 'tooLarge': {
          const max = this.#options.maxMessageBytes;
          this.#reason = new McpActorsError(
            ErrorCode.MESSAGE_TOO_LARGE,
            `server "${this.#options.serverName}" sent a message over ${max} bytes; the connection was closed. ` +
              'Raise maxMessageBytes if the server really sends messages this large',
            { details: { serverName: this.#options.serverName, maxMessageBytes: max, bytesSeen: event.bytes } },
          );
          this.#report(this.#reason);
          // A contract breach: the group is killed at once, not asked to stop.
          this.#killNow();
          void this.#stop();
          return;
        }
      }
    }
  }

  /** The stop escalation, run at most once (by `close()` or by a too-large message). */
  #stop(): Promise<void> {
    this.#stopPromise ??= this.#escalate().catch((error: unknown) => this.#report(error));
    return this.#stopPromise;
  }

  async #escalate(): Promise<void> {
    const pid = this.#pid;
    if (pid === undefined || this.#leaderExit) return;
    if (this.#stopStep === 'SIGKILL') {
      await this.#leaderExited;
      return;
    }
    const firstHalf = Math.floor(this.#options.shutdownTimeoutMs / 2);
    const secondHalf = this.#options.shutdownTimeoutMs - firstHalf;

    this.#stopStep = 'stdin-closed';
    this.#stdin?.end();
    if (await this.#leaderExitsWithin(firstHalf)) return;

    this.#stopStep = 'SIGTERM';
    killGroup(pid, 'SIGTERM');
    if (await this.#leaderExitsWithin(secondHalf)) return;

    this.#stopStep = 'SIGKILL';
    killGroup(pid, 'SIGKILL');
    await this.#leaderExited;
  }

  #leaderExitsWithin(ms: number): Promise<boolean> {
    if (this.#leaderExit) return Promise.resolve(true);
    return withDeadline(
      this.#leaderExited.then(() => true),
      { ms, onTimeout: () => false },
    );
  }

  #onLeaderExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#leaderExit) return;
    this.#leaderExit = { code, signal };
    this.#resolveLeaderExited();
    this.#afterLeaderExit(code, signal, this.#closeRequested).catch((error: unknown) => {
      // Never expected; the exit must be reported whatever happens.
      this.#report(error);
      this.#finish(this.#buildExit(code, signal, this.#closeRequested));
    });
  }

  async #afterLeaderExit(code: number | null, signal: NodeJS.Signals | null, requested: boolean): Promise<void> {
    const pid = this.#pid;
    if (pid !== undefined) {
      // A grandchild must never outlive its leader. The pgid cannot be reused while any member
      // is left, so signalling it is safe.
      killGroup(pid, 'SIGKILL');
      const left = await waitForEmptyGroup(pid, GROUP_EMPTY_TIMEOUT_MS);
      if (left.length === 0) {
        untrackGroup(pid);
      } else {
        // Still tracked: the host's exit hook will try again.
        this.#report(
          new McpActorsError(
            ErrorCode.SERVER_CRASHED,
            `server "${this.#options.serverName}": processes ${left.join(', ')} of its group were still alive ` +
              `${GROUP_EMPTY_TIMEOUT_MS} ms after SIGKILL; they will be killed again when the host exits`,
            { details: { serverName: this.#options.serverName, pgid: pid, pids: left } },
          ),
        );
      }
    }
    await withDeadline(this.#streamsDone, { ms: STREAM_DRAIN_TIMEOUT_MS, onTimeout: () => undefined });
    // Release the pipes even if something outside the group still holds them, so they cannot keep
    // the host's event loop alive.
    this.#stdin?.destroy();
    this.#stdout?.destroy();
    this.#stderrStream?.destroy();

    const exit = this.#buildExit(code, signal, requested);
    if (!requested && !exit.reason) {
      this.#report(
        new McpActorsError(ErrorCode.SERVER_CRASHED, describeExit(exit, this.#options.serverName), {
          details: { serverName: this.#options.serverName, code, signal, stderrTail: exit.stderrTail },
        }),
      );
    }
    this.#finish(exit);
  }

  #buildExit(code: number | null, signal: NodeJS.Signals | null, requested: boolean): ProcessExit {
    return {
      code,
      signal,
      normal: code === 0 && signal === null,
      ...(this.#reason ? { reason: this.#reason } : {}),
      stderrTail: this.#stderr.lines(),
      requested,
      ...(this.#stopStep ? { stopStep: this.#stopStep } : {}),
    };
  }

  /** Settles `exited` (first call wins) and fires `onclose`. */
  #finish(exit: ProcessExit): void {
    if (this.#exit === undefined) {
      this.#exit = exit;
      this.#resolveExited(exit);
    }
    this.#fireOnclose();
  }

  #fireOnclose(): void {
    if (this.#oncloseFired) return;
    this.#oncloseFired = true;
    try {
      this.onclose?.();
    } catch (error) {
      this.#report(error);
    }
  }

  #report(error: unknown): void {
    try {
      this.onerror?.(error instanceof Error ? error : new Error(messageOf(error)));
    } catch {
      // An onerror handler that throws has nowhere left to report to.
    }
  }

  /** Records a failed spawn (resolving `exited`) and returns the SPAWN_FAILED error to reject with. */
  async #spawnFailed(cause: unknown): Promise<McpActorsError> {
    const error = await spawnFailedError(cause, this.#options);
    this.#reason = error;
    if (this.#exit === undefined) {
      this.#exit = { code: null, signal: null, normal: false, reason: error, stderrTail: [], requested: this.#closeRequested };
      this.#resolveExited(this.#exit);
    }
    return error;
  }
}

/**
 * Polls until no living process is left in the group (zombies count as gone), SIGKILLing any
 * member found; returns the members still alive at the deadline.
 */
async function waitForEmptyGroup(pgid: number, timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const members = groupMembers(pgid);
    if (members.length === 0 || Date.now() >= deadline) return members;
    killGroup(pgid, 'SIGKILL');
    await delay(GROUP_POLL_MS);
  }
}

function streamEnded(stream: Readable | null): Promise<void> {
  if (stream === null || stream.destroyed || stream.readableEnded) return Promise.resolve();
  return new Promise<void>((resolve) => {
    stream.once('end', () => resolve());
    stream.once('close', () => resolve());
    stream.once('error', () => resolve());
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function noop(): void {}
