/**
 * `agents status --watch --inspect`: the watch runs with the runtime's inspector server on. The URL
 * is printed once; a viewer (a `ws` client standing in for the inspector page) receives the tree
 * with its role labels; Ctrl+C stops everything, closes the viewer's connection and exits 130.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServerPath } from '../../src/testing/fixture.js';
import { connectViewer, waitForActors } from '../support/inspector-viewer.js';
import { expectAllGone } from '../support/processes.js';
import { waitUntil } from '../support/wait.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/agents.mjs');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-actors-watch-inspect-'));
  const env = process.env.MCP_ACTORS_PID_LOG ? { MCP_ACTORS_PID_LOG: process.env.MCP_ACTORS_PID_LOG } : {};
  writeFileSync(
    join(dir, 'agents.yaml'),
    stringify({
      servers: { fixture: { command: process.execPath, args: [fixtureServerPath()], env } },
      skills: { ops: { mcp_servers: ['fixture'] } },
      actors: { helper: { skills: ['ops'] } },
    }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('agents status --watch --inspect', () => {
  it('prints the inspector URL once, feeds a viewer the labelled tree, and Ctrl+C closes it and exits 130', async () => {
    // The default port is 8080, or a free one when it is taken: the printed URL says which.
    const child = spawn(process.execPath, [bin, 'status', 'helper', '--watch', '--inspect'], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitUntil(() => /Stately inspector: http:\/\/127\.0\.0\.1:\d+/.test(out) && /fixture@local RUNNING pid \d+/.test(out), 'the URL and a RUNNING line', 20_000);
      expect(out.match(/Stately inspector: /g)).toHaveLength(1);
      const port = Number(/Stately inspector: http:\/\/127\.0\.0\.1:(\d+)/.exec(out)![1]);
      const pid = Number(/RUNNING pid (\d+)/.exec(out)![1]);
      const viewer = await connectViewer(`ws://127.0.0.1:${port}`);
      await waitForActors(viewer, ['runtime', 'actor:helper:local', 'server:fixture:local']);
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(await viewer.closed).toBe(1001);
      await expectAllGone([pid]);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
