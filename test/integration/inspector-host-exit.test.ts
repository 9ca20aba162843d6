/**
 * With the inspector on, the host exits by itself once `runtime.shutdown()` resolves: the inspector
 * server and every viewer connection are closed. A real host process (the built runtime), real
 * viewers (`ws` clients), with and without viewers connected.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { connectViewer, waitForActors, type Viewer } from '../support/inspector-viewer.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const hostScript = fileURLToPath(new URL('../support/inspector-host.mjs', import.meta.url));

beforeAll(() => {
  if (!existsSync(`${repoRoot}/dist/index.js`) || !existsSync(`${repoRoot}/dist/inspector/inspector-server.js`)) {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
  }
}, 120_000);

/** Generous: this is "it exits at all", not a speed claim. */
const EXITS_WITHIN_MS = 15_000;

async function runHost(
  viewerCount: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; viewers: Viewer[]; stderr: string }> {
  const child = spawn(process.execPath, [hostScript], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      void exited.then(() => reject(new Error(`the host exited before it was ready: ${stderr}`)));
    });
    const { wsUrl } = JSON.parse(line) as { url: string; wsUrl: string };
    const viewers: Viewer[] = [];
    for (let i = 0; i < viewerCount; i++) viewers.push(await connectViewer(wsUrl));
    for (const viewer of viewers) await waitForActors(viewer, ['runtime', 'actor:worker:acme', 'server:files:acme']);
    child.stdin.write('shutdown\n');
    const timer = setTimeout(() => child.kill('SIGKILL'), EXITS_WITHIN_MS);
    const exit = await exited;
    clearTimeout(timer);
    return { ...exit, viewers, stderr };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

describe('the host with the inspector on', () => {
  it('exits by itself after shutdown() with no viewer connected', async () => {
    const { code, signal, stderr } = await runHost(0);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(stderr).toMatch(/^Inspector: http:\/\/127\.0\.0\.1:\d+ \(the Stately inspector: http:\/\/127\.0\.0\.1:\d+\/stately\)$/m);
    expect(stderr).toContain('inspector-host: shut down');
  });

  it('exits by itself after shutdown() with viewers connected, and closes their connections', async () => {
    const { code, signal, viewers, stderr } = await runHost(2);
    expect({ code, signal, stderr }).toMatchObject({ code: 0, signal: null });
    for (const viewer of viewers) expect(await viewer.closed).toBe(1001);
    // The viewers saw the runtime reach its final state before the server went away.
    for (const viewer of viewers) {
      expect(viewer.messages.some((m) => m.type === '@xstate.snapshot' && m.snapshot?.status === 'done')).toBe(true);
    }
  });
});
