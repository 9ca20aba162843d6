/**
 * `agents status --watch --inspect`: the watch runs with the runtime's inspector server on. The URL
 * is printed once; a viewer (a `ws` client standing in for the inspector page) receives the tree
 * with its role labels; Ctrl+C stops everything, closes the viewer's connection and exits 130.
 */
import { describe, expect, it } from 'vitest';
import { agentsProject, fixtureServer, spawnAgents } from '../support/agents-cli.js';
import { connectViewer, waitForActors } from '../support/inspector-viewer.js';
import { expectAllGone } from '../support/processes.js';
import { waitUntil } from '../support/wait.js';

const project = agentsProject('mcp-actors-watch-inspect-', () => ({
  servers: { fixture: fixtureServer() },
  skills: { ops: { mcp_servers: ['fixture'] } },
  actors: { helper: { skills: ['ops'] } },
}));

describe('agents status --watch --inspect', () => {
  it('prints the inspector URL once, feeds a viewer the labelled tree, and Ctrl+C closes it and exits 130', async () => {
    // The default port is 8080, or a free one when it is taken: the printed URL says which.
    const agents = spawnAgents(['status', 'helper', '--watch', '--inspect'], { cwd: project.dir });
    const { child, exited } = agents;
    const output = (): string => agents.output();
    try {
      await waitUntil(
        () => /Stately inspector: http:\/\/127\.0\.0\.1:\d+/.test(output()) && /fixture@local RUNNING pid \d+/.test(output()),
        'the URL and a RUNNING line',
        20_000,
      );
      const out = output();
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
