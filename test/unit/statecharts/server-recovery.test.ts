/**
 * The supervisor's recovery rules, over fake connections and fake time: contract breaches are
 * killed at once, the first restart after a crash is immediate and backoff grows from the second,
 * a start on use after a clean exit is not a restart (OTP's transient), and status() keeps the last
 * error and the last exit.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/errors/codes.js';
import { McpActorsError, isMcpActorsError } from '../../../src/errors/mcp-actors-error.js';
import { useFakeClients } from '../../support/fake-clients.js';
import { rejection } from '../../support/rejection.js';

const fake = useFakeClients();
const { client, flush, flushed, started } = fake;

describe('contract breaches', () => {
  it('kills a server whose handshake outlives startTimeoutMs at once, and backs off before the retry', async () => {
    fake.servers.script.push('hang');
    const c = client();
    const start = c.start();
    await flush(1_000);
    expect(fake.servers.kills).toBe(1);
    expect(c.status().lastError?.code).toBe('START_TIMEOUT');
    expect(c.status().nextAttemptAt).toBe(Date.now() + 100);
    await flush(100);
    await start;
    expect(fake.servers.spawns).toBe(2);
  });

  it('kills a server that stops answering pings, and restarts it at once', async () => {
    fake.servers.pingHang = true;
    const c = client({ pingIntervalMs: 200 });
    await started(c);
    fake.servers.pingHang = false;
    await flush(400);
    expect(fake.servers.kills).toBe(1);
    expect(c.status().lastError?.code).toBe('PING_TIMEOUT');
    // Well within the 100 ms a backoff would take.
    await flush(10);
    expect(c.state).toBe('RUNNING');
    expect(fake.servers.spawns).toBe(2);
  });

  it('closes (does not kill) a server on a plain stop', async () => {
    const c = client();
    await started(c);
    await flushed(c.stop());
    expect(fake.servers.kills).toBe(0);
  });
});

describe('the restart rule', () => {
  it('restarts a crashed RUNNING server at once the first time in a window, then with growing backoff', async () => {
    const c = client({ maxRestarts: 5 });
    await started(c);
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      fake.servers.crash();
      await flush();
      delays.push(c.state === 'RUNNING' ? 0 : c.status().nextAttemptAt! - Date.now());
      await flush(2_000);
      expect(c.state).toBe('RUNNING');
    }
    expect(delays).toEqual([0, 100, 200, 400]);
  });

  it('starts a transient server that keeps exiting normally again on each call, and never counts its clean exits', async () => {
    const c = client({ restart: 'transient', maxRestarts: 1, periodMs: 60_000 });
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++) {
      const answer = c.callTool('echo', { message: `m${i}` }).then(
        () => 'ok',
        (error: unknown) => (isMcpActorsError(error) ? error.code : String(error)),
      );
      await flush();
      outcomes.push(await answer);
      fake.servers.crash(true);
      await flush();
      expect(c.state).toBe('STOPPED');
      expect(c.status().restarts).toBe(0);
    }
    expect(fake.servers.spawns).toBe(4);
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'ok']);
  });

  it('leaves the intensity as it was across a clean exit: an earlier crash still counts', async () => {
    const c = client({ restart: 'transient', maxRestarts: 1, periodMs: 60_000 });
    await started(c);
    fake.servers.crash();
    await flush();
    expect(c.state).toBe('RUNNING');
    expect(c.status().restarts).toBe(1);
    fake.servers.crash(true);
    await flush();
    expect(c.state).toBe('STOPPED');
    await flushed(c.callTool('echo', { message: 'lazy' }));
    expect(c.status().restarts).toBe(1);
    // The window still holds the first crash's restart: a second crash is one too many.
    fake.servers.crash();
    await flush(1_000);
    expect(c.state).toBe('ERROR');
    expect(fake.servers.spawns).toBe(3);
  });

  it('does not count a lazy start after an idle stop', async () => {
    const c = client({ idleStopMs: 500, maxRestarts: 0 });
    for (let i = 0; i < 3; i++) {
      await flushed(c.callTool('echo', { message: 'x' }));
      await flush(600);
      expect(c.state).toBe('STOPPED');
    }
    expect(fake.servers.spawns).toBe(3);
  });
});

describe('status()', () => {
  it('keeps the last error after the server is RUNNING again, until the next one', async () => {
    fake.servers.script.push('fail');
    const c = client();
    await flushed(c.start(), 100);
    expect(c.state).toBe('RUNNING');
    expect(c.status().lastError?.message).toContain('fake exited on start');
    fake.servers.crash();
    await flush();
    expect(c.status().lastError?.message).toContain('fake server crashed');
  });

  it('does not retry a start that failed for good (retryable: false) and says why', async () => {
    fake.servers.script.push('spawn-fail');
    const c = client();
    const failed = rejection(c.start());
    await flush();
    expect((await failed).code).toBe(ErrorCode.SERVER_IN_ERROR);
    expect(c.status().lastError).toBeInstanceOf(McpActorsError);
    expect(fake.servers.spawns).toBe(1);
  });
});
