/**
 * A server that gives up (ERROR) is reported to whoever reads the error in their own terms: an
 * actor's call of its tool says the server is down, why (its last error, redacted), and the way
 * back an actor's holder has; an McpClient's start() says to call start() again, never that
 * start() waits for start().
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/mcp-client.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { fixtureServerPath } from '../../src/testing/fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'server-down-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ready = join(dir, 'ready');
const token = 'tok-9f3c1d77e2a4b5c6';
const pidLog: Record<string, string> = process.env.MCP_ACTORS_PID_LOG ? { MCP_ACTORS_PID_LOG: process.env.MCP_ACTORS_PID_LOG } : {};

// The fixture server, behind a start check that fails (quoting its secret, as servers do) until
// the `ready` file exists: the cause an operator fixes.
const guarded = {
  command: '/bin/sh',
  args: [
    '-c',
    `if [ -f "${ready}" ]; then exec "${process.execPath}" "${fixtureServerPath()}"; fi; echo "token $API_TOKEN rejected" >&2; exit 3`,
  ],
  env: { API_TOKEN: token, ...pidLog },
  max_restarts: 1,
  backoff: { initial_ms: 1, max_ms: 1 },
};

describe('a server in ERROR', () => {
  it("makes an actor's call of its tool say the server is down, why, and how to get it back", async () => {
    expect(existsSync(ready)).toBe(false);
    const runtime = await createRuntime({
      config: {
        servers: { flaky: guarded, good: { command: process.execPath, args: [fixtureServerPath()], env: pidLog } },
        skills: {
          both: {
            mcp_servers: [
              { server: 'good', include: ['echo'] },
              { server: 'flaky', include: ['echo'], required: false },
            ],
          },
        },
        actors: { helper: { skills: ['both'], permissions: { execute: 'allow' } } },
      },
    });
    try {
      const helper = await runtime.activate('helper', { tenant: 'acme' });
      expect(helper.activation?.unavailable.map((u) => u.server)).toEqual(['flaky']);
      expect(helper.activation?.unavailable[0]?.error.message).toMatch(
        /^server "flaky" of actor "helper" is down: it gave up after 1 automatic restart \(SERVER_EXITED: .*\); fix the cause, then activate the actor again$/,
      );

      const outcome = await helper.call('flaky/echo', { message: 'hi' });
      expect(outcome.status).toBe('rejected');
      expect(outcome.error?.code).toBe('SERVER_IN_ERROR');
      const message = outcome.error?.message ?? '';
      expect(message).toMatch(
        /^"flaky\/echo" cannot be called: server "flaky" is down: it gave up after 1 automatic restart \(SERVER_EXITED: /,
      );
      expect(message).toContain('fix the cause, then deactivate() the actor and activate() it again');
      expect(message).toContain('token [redacted] rejected');
      expect(message).not.toContain('no tool named');
      expect(message).not.toMatch(/start\(\)|reconnect\(\)/);
      expect(JSON.stringify({ message, details: outcome.error?.details })).not.toContain(token);

      // The way back the message names works.
      writeFileSync(ready, '');
      await helper.deactivate();
      const again = await runtime.activate('helper', { tenant: 'acme' });
      expect(again.activation?.unavailable).toEqual([]);
      const echoed = await again.call('flaky/echo', { message: 'back' });
      expect(echoed.status).toBe('committed');
    } finally {
      await runtime.shutdown();
      rmSync(ready, { force: true });
    }
  });

  it("makes an McpClient's start() say to call start() again once the cause is fixed", async () => {
    const client = new McpClient({
      name: 'flaky',
      transport: 'stdio',
      command: guarded.command,
      args: guarded.args,
      env: guarded.env,
      maxRestarts: 0,
    });
    try {
      const error: unknown = await client.start().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({
        code: 'SERVER_IN_ERROR',
        details: { server: 'flaky', restarts: 0, lastError: { code: 'SERVER_EXITED' } },
      });
      const message = (error as Error).message;
      expect(message).toMatch(
        /^server "flaky" gave up after 0 automatic restarts and is in ERROR \(SERVER_EXITED: .*\); fix the cause, then call start\(\) again$/,
      );
      expect(message).not.toContain('cannot run until');
      expect(message).not.toContain(token);
    } finally {
      await client.dispose();
    }
  });
});
