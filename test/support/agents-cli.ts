/**
 * The `agents` command as a real process (`node bin/agents.mjs`, as a user runs it): its path, the
 * environment a fixture server in an agents.yaml is given, a temporary project folder holding the
 * file, and two ways to run it — to its end, or spawned (piped or in a pseudo-terminal) and watched.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { afterAll, beforeAll } from 'vitest';
import { fixtureServerPath } from '../../src/testing/fixture.js';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const agentsBin = join(repoRoot, 'bin/agents.mjs');

/** What a spawned fixture server's env must carry so that the run's pid log sees it (empty without one). */
export function pidLogEnv(): Record<string, string> {
  return process.env.MCP_ACTORS_PID_LOG ? { MCP_ACTORS_PID_LOG: process.env.MCP_ACTORS_PID_LOG } : {};
}

/** An agents.yaml `servers:` entry running the fixture server with `args`. */
export function fixtureServer(args: readonly string[] = []): { command: string; args: string[]; env: Record<string, string> } {
  return { command: process.execPath, args: [fixtureServerPath(), ...args], env: pidLogEnv() };
}

/**
 * Before the file's tests, a folder `prefix…` under the temp dir with `agents.yaml` written from
 * `config()` (as YAML) and any `files()` (name to text) beside it; removed after them.
 */
export function agentsProject(
  prefix: string,
  config: () => unknown,
  files: () => Record<string, string> = () => ({}),
): { readonly dir: string } {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    writeFileSync(join(dir, 'agents.yaml'), stringify(config()));
    for (const [name, text] of Object.entries(files())) writeFileSync(join(dir, name), text);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    get dir() {
      return dir;
    },
  };
}

export interface AgentsRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `agents args` in `cwd` to its end; `input`, when given, is written to its stdin, which is
 * then closed (otherwise stdin stays open and unwritten).
 * Rejects (with its stderr) when it did not exit with a code: killed at `timeoutMs`, or not started.
 */
export function runAgents(
  args: readonly string[],
  options: { cwd: string; timeoutMs: number; input?: string; env?: Record<string, string> },
): Promise<AgentsRun> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [agentsBin, ...args],
      { cwd: options.cwd, timeout: options.timeoutMs, env: { ...process.env, ...options.env } },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          reject(new Error(`agents ${args.join(' ')}: ${error.message}\n${stderr}`));
          return;
        }
        resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

export interface SpawnedAgents {
  readonly child: ChildProcessWithoutNullStreams;
  /** Everything it wrote so far, stdout and stderr together. */
  output(): string;
  /** Ctrl+C: the key in a terminal, SIGINT when piped. */
  interrupt(): void;
  /** Its exit code (null after a signal). */
  readonly exited: Promise<number | null>;
}

/** Spawns `agents args` in `cwd`, piped or (`terminal`) in a pseudo-terminal made by util-linux `script`. */
export function spawnAgents(args: readonly string[], options: { cwd: string; terminal?: boolean }): SpawnedAgents {
  const command = [process.execPath, agentsBin, ...args];
  const child = options.terminal
    ? spawn('script', ['-qfec', command.map((part) => `'${part}'`).join(' '), '/dev/null'], {
        cwd: options.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, TERM: 'xterm' },
      })
    : spawn(command[0]!, command.slice(1), { cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return {
    child,
    output: () => out,
    interrupt: () => {
      if (options.terminal) child.stdin.write('\u0003');
      else child.kill('SIGINT');
    },
    exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
  };
}
