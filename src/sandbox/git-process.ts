/**
 * Running git as a child process — argument arrays (never a shell), stdin from a buffer, output
 * collected — shared by the checkpoint store (`git.ts`) and the sandbox (`sandbox-git.ts`), which
 * differ only in the environment they give git and the error code they report with.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { trackGroup, untrackGroup } from '../process/process-groups.js';
import type { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';

export interface GitProcessOptions {
  /** `git`, or a shell that execs git (to set a umask first). */
  readonly command?: string;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd?: string | undefined;
  readonly input?: string | Buffer | undefined;
  /** Exit codes that are answers rather than failures (e.g. `check-ignore` exits 1 for "no"). */
  readonly okExitCodes?: readonly number[] | undefined;
  /** The code a failure is reported with. */
  readonly errorCode: ErrorCode;
  /** What to call the command in messages (e.g. `git add` or `git add in /repo`). */
  readonly label: string;
  /** Shown in `details.args`. */
  readonly shownArgs: readonly string[];
}

export interface GitProcessResult {
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly exitCode: number;
}

export function runGitProcess(argv: readonly string[], options: GitProcessOptions): Promise<GitProcessResult> {
  return new Promise((resolve, reject) => {
    const couldNotRun = (error: Error): McpActorsError =>
      new McpActorsError(options.errorCode, `could not run ${options.label}: ${error.message}; is git installed and on PATH?`, {
        cause: error,
        details: { args: options.shownArgs, ...('code' in error && typeof error.code === 'string' ? { errno: error.code } : {}) },
      });
    let child: ChildProcess;
    try {
      // In a group of its own and tracked like a server's, so the host's exit hook and the reaper
      // kill a git left running by a host that died (it would go on holding index.lock).
      child = spawn(options.command ?? 'git', argv, {
        cwd: options.cwd,
        env: options.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      });
    } catch (error) {
      reject(couldNotRun(error instanceof Error ? error : new Error(String(error))));
      return;
    }
    const pid = child.pid;
    if (pid !== undefined) trackGroup(pid, { log: false });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.on('error', (error) => {
      if (pid !== undefined) untrackGroup(pid);
      reject(couldNotRun(error));
    });
    // Out of descriptors (EMFILE) there are no pipes: the 'error' above reports it.
    if (!child.stdin || !child.stdout || !child.stderr) return;
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.stdin.on('error', () => {
      // git may exit before reading all of its input; the exit code tells what happened.
    });
    child.on('exit', () => {
      if (pid !== undefined) untrackGroup(pid);
    });
    child.on('close', (code, signal) => {
      const result: GitProcessResult = { stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), exitCode: code ?? -1 };
      if (code === 0 || (code !== null && options.okExitCodes?.includes(code))) {
        resolve(result);
        return;
      }
      const how = code === null ? `was killed by ${signal ?? 'a signal'}` : `exited with ${code}`;
      reject(
        new McpActorsError(options.errorCode, `${options.label} ${how}: ${result.stderr.trim()}`, {
          details: { args: options.shownArgs, cwd: options.cwd, exitCode: result.exitCode, stderr: result.stderr },
        }),
      );
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Splits NUL-terminated output (`-z`) into its fields, dropping the empty tail. */
export function splitNul(output: Buffer | string): string[] {
  const fields = output.toString('utf8').split('\0');
  if (fields[fields.length - 1] === '') fields.pop();
  return fields;
}
