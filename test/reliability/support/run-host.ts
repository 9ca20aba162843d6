/**
 * Runs a plain-Node host script of the reliability suite (built runtime from dist/) to its end and
 * returns the JSON lines it printed, its exit and its stderr. dist/ is built first when missing.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

export function ensureBuilt(): void {
  if (!existsSync(`${repoRoot}/dist/index.js`) || !existsSync(`${repoRoot}/dist/testing/fixture-server.mjs`)) {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
  }
}

export interface HostRun {
  readonly lines: Record<string, unknown>[];
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

/** `command args…` with the test's environment (MCP_ACTORS_PID_LOG included), killed after `timeoutMs`. */
export function runHost(command: string, args: readonly string[], timeoutMs = 60_000): Promise<HostRun> {
  return new Promise((resolve) => {
    execFile(
      command,
      [...args],
      { cwd: repoRoot, env: { ...process.env }, timeout: timeoutMs, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const lines = stdout
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as Record<string, unknown>);
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ lines, code, signal: error?.signal ?? null, stderr });
      },
    );
  });
}
