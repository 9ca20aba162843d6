/**
 * OTP's transient restart type against the real stdio fixture: a server that exits with code 0 is
 * not restarted and its clean exit counts for nothing; the next call starts it again and the
 * restart intensity is left as it was. With `maxRestarts: 1`, any number of clean exits keep it
 * healthy.
 */
import { describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/mcp-client.js';
import { fixtureServerConfig } from '../../src/testing/fixture.js';
import { clientsGoneAfterEach } from '../support/processes.js';
import { rejection } from '../support/rejection.js';
import { waitUntil } from '../support/wait.js';

const kept = clientsGoneAfterEach();

function text(result: { content: unknown }): string {
  return (result.content as { type: string; text: string }[])[0]!.text;
}

describe('a transient server that exits cleanly', () => {
  it('is started again by each next call and stays healthy with maxRestarts: 1, however often it exits 0', async () => {
    const client = kept(
      new McpClient(
        fixtureServerConfig({
          name: 'clean-exits',
          exitZeroAfter: 1,
          extra: { restart: 'transient', maxRestarts: 1, periodMs: 60_000, shutdownTimeoutMs: 1_000 },
        }),
      ),
    );
    const pids = new Set<number>();
    for (let round = 1; round <= 3; round++) {
      // The first call of each process is answered (starting it lazily from round 2 on); the second makes it exit 0.
      expect(text(await client.callTool('echo', { message: `round ${round}` }))).toBe(`round ${round}`);
      pids.add(client.status().pid!);
      expect((await rejection(client.callTool('echo', { message: 'exit now' }))).code).toBe('CONNECTION_LOST');
      await waitUntil(() => client.state === 'STOPPED', `the clean exit of round ${round}`);
      expect(client.status().restarts).toBe(0);
      expect(client.status().lastExit).toMatchObject({ code: 0, signal: null });
    }
    expect(pids.size).toBe(3);
    expect(text(await client.callTool('echo', { message: 'still healthy' }))).toBe('still healthy');
    expect(client.state).toBe('RUNNING');
    expect(client.status().restarts).toBe(0);
  });
});
