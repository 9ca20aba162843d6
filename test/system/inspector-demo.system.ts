/**
 * `agents demo --inspect`: once the tour is done the host keeps running, and its inspector keeps
 * serving the live tree, until Ctrl+C (SIGINT), which ends it with 130 and no process left behind.
 * A real `agents` process, a real HTTP request for the page and a real viewer socket.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnAgents } from '../support/agents-cli.js';
import { connectViewer, waitForActors } from '../support/inspector-viewer.js';
import { waitUntil } from '../support/wait.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-actors-demo-inspect-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('agents demo --inspect', () => {
  it('keeps serving the inspector after the tour until Ctrl+C, printing its URL once', async () => {
    const run = spawnAgents(['demo', '--inspect'], { cwd: dir });
    try {
      await waitUntil(() => run.output().includes('Ctrl+C to end the demo'), 'the demo to say it keeps serving', 90_000);
      const out = run.output();
      expect(out.match(/Inspector: http:\/\/127\.0\.0\.1:\d+/g)).toHaveLength(1);
      const url = /Inspector: (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
      // The tour is over, and the host still serves the page and the live tree.
      expect(out).toContain('applied: the project now reads');
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('mcp-actors inspector');
      const viewer = await connectViewer(url.replace('http:', 'ws:'));
      await waitForActors(viewer, ['runtime', 'actor:editor:acme', 'actor:editor:globex']);
      run.interrupt();
      expect(await run.exited).toBe(130);
      expect(await viewer.closed).toBe(1001);
      expect(run.output()).toMatch(/Done in [\d.]+ s; no process left/);
      expect(run.output()).toContain('alive afterwards: none');
    } finally {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    }
  });

  it('with --inspect-for <ms> ends by itself after that long', async () => {
    const run = spawnAgents(['demo', '--inspect-for', '1'], { cwd: dir });
    try {
      expect(await run.exited).toBe(0);
      expect(run.output()).toContain('keeps serving the live tree for 1 ms');
    } finally {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    }
  });
});
