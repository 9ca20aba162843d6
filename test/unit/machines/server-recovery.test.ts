/**
 * The supervisor's recovery rules, over fake connections and fake time: contract breaches are
 * killed at once, the first restart after a crash is immediate and backoff grows from the second,
 * lazy starts after a server's own exits count against the intensity, and status() keeps the last
 * error and the last exit.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpClient } from '../../../src/client/mcp-client.js';
import type { McpServerConfig } from '../../../src/config/server-config.js';
import { ErrorCode } from '../../../src/errors/codes.js';
import { McpActorsError } from '../../../src/errors/mcp-actors-error.js';
import { FakeServers } from '../../support/fake-server.js';
import { rejection } from '../../support/rejection.js';

const base: McpServerConfig = {
  name: 'fake',
  command: 'fake-server',
  backoff: { initialMs: 100, maxMs: 1_000, factor: 2, jitter: 0 },
  startTimeoutMs: 1_000,
  callTimeoutMs: 10_000,
};

let fakes: FakeServers;
let clients: McpClient[];
const flush = (ms = 0) => vi.advanceTimersByTimeAsync(ms);

function client(overrides: Partial<McpServerConfig> = {}): McpClient {
  const created = new McpClient({ ...base, ...overrides }, { actors: { connectServer: fakes.connectServer } });
  clients.push(created);
  return created;
}

async function started(c: McpClient): Promise<void> {
  const start = c.start();
  await flush();
  await start;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  fakes = new FakeServers();
  clients = [];
});
afterEach(async () => {
  const disposing = Promise.all(clients.map((c) => c.dispose()));
  await flush(10_000);
  await disposing;
  expect(fakes.liveCount).toBe(0);
  vi.useRealTimers();
});

describe('contract breaches', () => {
  it('kills a server whose handshake outlives startTimeoutMs at once, and backs off before the retry', async () => {
    fakes.script.push('hang');
    const c = client();
    const start = c.start();
    await flush(1_000);
    expect(fakes.kills).toBe(1);
    expect(c.status().lastError?.code).toBe('START_TIMEOUT');
    expect(c.status().nextAttemptAt).toBe(Date.now() + 100);
    await flush(100);
    await start;
    expect(fakes.spawns).toBe(2);
  });

  it('kills a server that stops answering pings, and restarts it at once', async () => {
    fakes.pingHang = true;
    const c = client({ pingIntervalMs: 200 });
    await started(c);
    fakes.pingHang = false;
    await flush(400);
    expect(fakes.kills).toBe(1);
    expect(c.status().lastError?.code).toBe('PING_TIMEOUT');
    // Well within the 100 ms a backoff would take.
    await flush(10);
    expect(c.state).toBe('RUNNING');
    expect(fakes.spawns).toBe(2);
  });

  it('closes (does not kill) a server on a plain stop', async () => {
    const c = client();
    await started(c);
    const stop = c.stop();
    await flush();
    await stop;
    expect(fakes.kills).toBe(0);
  });
});

describe('the restart rule', () => {
  it('restarts a crashed RUNNING server at once the first time in a window, then with growing backoff', async () => {
    const c = client({ maxRestarts: 5 });
    await started(c);
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      fakes.crash();
      await flush();
      delays.push(c.state === 'RUNNING' ? 0 : c.status().nextAttemptAt! - Date.now());
      await flush(2_000);
      expect(c.state).toBe('RUNNING');
    }
    expect(delays).toEqual([0, 100, 200, 400]);
  });

  it('spawns a server that keeps exiting normally at most 1 + maxRestarts times, however many calls come', async () => {
    const c = client({ restart: 'transient', maxRestarts: 2, periodMs: 60_000 });
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const answer = c.callTool('echo', { message: `m${i}` }).then(
        () => 'ok',
        (error: McpActorsError) => error.code,
      );
      await flush();
      outcomes.push(await answer);
      fakes.crash(true);
      await flush();
    }
    expect(fakes.spawns).toBe(3);
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'SERVER_IN_ERROR', 'SERVER_IN_ERROR', 'SERVER_IN_ERROR']);
    expect(c.state).toBe('ERROR');
  });

  it('does not count a lazy start after an idle stop', async () => {
    const c = client({ idleStopMs: 500, maxRestarts: 0 });
    for (let i = 0; i < 3; i++) {
      const answer = c.callTool('echo', { message: 'x' });
      await flush();
      await answer;
      await flush(600);
      expect(c.state).toBe('STOPPED');
    }
    expect(fakes.spawns).toBe(3);
  });
});

describe('status()', () => {
  it('keeps the last error after the server is RUNNING again, until the next one', async () => {
    fakes.script.push('fail');
    const c = client();
    const start = c.start();
    await flush(100);
    await start;
    expect(c.state).toBe('RUNNING');
    expect(c.status().lastError?.message).toContain('fake exited on start');
    fakes.crash();
    await flush();
    expect(c.status().lastError?.message).toContain('fake server crashed');
  });

  it('does not retry a start that failed for good (retryable: false) and says why', async () => {
    fakes.script.push('spawn-fail');
    const c = client();
    const failed = rejection(c.start());
    await flush();
    expect((await failed).code).toBe(ErrorCode.SERVER_IN_ERROR);
    expect(c.status().lastError).toBeInstanceOf(McpActorsError);
    expect(fakes.spawns).toBe(1);
  });
});
