/**
 * The in-process fixture through `createRuntime`, as a host tests its own embedding: the runtime's
 * `serverActors` option runs a configured server over the fixture instead of spawning it. A crash
 * fails the call in flight with a family code, the supervisor restarts the server, the next call
 * is answered, status() shows the restart, and shutdown() ends every fixture server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/index.js';
import { ErrorCode } from '../../src/errors/codes.js';
import { inProcessFixture, type InProcessFixture } from '../../src/testing/index.js';
import { stringContaining } from '../support/matchers.js';

let runtime: Runtime | undefined;
let fixture: InProcessFixture | undefined;
afterEach(async () => {
  await runtime?.shutdown();
  expect(fixture?.running ?? 0).toBe(0);
  await fixture?.dispose();
  runtime = undefined;
  fixture = undefined;
});

const configWith = (command: string) => ({
  servers: { flaky: { command, restart: 'permanent', backoff: { initial_ms: 10, max_ms: 50, jitter: 0 } } },
  tools: { 'flaky/echo': { overrides: { read_only: true } } },
  skills: { fx: { mcp_servers: ['flaky'] } },
  actors: { tester: { skills: ['fx'] } },
});

describe('createRuntime over the in-process fixture (serverActors)', () => {
  it('a crash after two calls: the third fails CONNECTION_LOST, the server restarts, the fourth is answered', async () => {
    fixture = inProcessFixture({ crashAfter: 2 });
    // The command is never run: the server's supervision runs on the fixture's actors.
    runtime = await createRuntime({ config: configWith('/nonexistent/never-run'), serverActors: { flaky: fixture.actors } });
    const actor = await runtime.activate('tester', { tenant: 't' });
    const answers = [];
    for (const message of ['a', 'b']) {
      const outcome = await actor.call('flaky/echo', { message });
      expect(outcome.status).toBe('committed');
      answers.push((outcome.result?.content[0] as { text: string }).text);
    }
    expect(answers).toEqual(['a', 'b']);
    const crashed = await actor.call('flaky/echo', { message: 'c' });
    expect(crashed.status).toBe('failed');
    expect(crashed.error?.code).toBe(ErrorCode.CONNECTION_LOST);
    const again = await actor.call('flaky/echo', { message: 'd' }, { timeoutMs: 10_000 });
    expect(again.status).toBe('committed');
    expect((again.result?.content[0] as { text: string }).text).toBe('d');
    const [status] = runtime.status().servers;
    expect(status?.server).toBe('flaky');
    expect(status?.state).toBe('RUNNING');
    expect(status?.restarts).toBe(1);
    expect(fixture.started).toBe(2);
  });

  it('refuses serverActors for a server the configuration does not declare', async () => {
    fixture = inProcessFixture();
    await expect(
      createRuntime({ config: configWith('/nonexistent/never-run'), serverActors: { flakey: fixture.actors } }),
    ).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: stringContaining('"flakey", which is not a server of the configuration'),
    });
  });
});
