/**
 * `status()` keeps the last error and the last exit (code, signal, stderr tail) until the next
 * one — also after a contract breach, where the runtime itself SIGKILLs the group: a ping timeout,
 * a start timeout, an oversized message.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/mcp-client.js';
import type { McpServerConfig } from '../../src/config/server-config.js';
import { fixtureServerConfig, type FixtureOptions } from '../../src/testing/fixture.js';
import { spawnedProcesses, waitForServerState } from '../../src/testing/index.js';

const FAST: Partial<McpServerConfig> = { backoff: { initialMs: 20, maxMs: 200, factor: 2, jitter: 0 }, shutdownTimeoutMs: 20_000 };
const clients: McpClient[] = [];

function client(options: FixtureOptions, extra: Partial<McpServerConfig>): McpClient {
  const made = new McpClient(fixtureServerConfig({ name: 'last-exit', stderrLines: 2, ...options, extra: { ...FAST, ...extra } }));
  clients.push(made);
  return made;
}

afterEach(async () => {
  for (const made of clients.splice(0)) await made.dispose();
  expect(spawnedProcesses().groups).toEqual([]);
});

describe('status().lastExit after the runtime kills a server', () => {
  it('a ping timeout: SIGKILL and the stderr tail, kept while RUNNING again', async () => {
    const c = client({ pingHang: true }, { pingIntervalMs: 200 });
    await c.start();
    expect(c.status().lastExit).toBeUndefined();
    await waitForServerState(c, 'STARTING', 10_000);
    await waitForServerState(c, 'RUNNING', 10_000);
    expect(c.status().lastError?.code).toBe('PING_TIMEOUT');
    expect(c.status().lastExit).toMatchObject({ code: null, signal: 'SIGKILL' });
    expect(c.status().lastExit?.stderrTail).toEqual(['fixture stderr line 1', 'fixture stderr line 2']);
  });

  it('a start timeout: SIGKILL, kept in ERROR', async () => {
    // Long enough for node to start and write its stderr lines under load; the hang is in the handshake.
    const c = client({ hangOnInitialize: true }, { startTimeoutMs: 3_000, maxRestarts: 0 });
    await expect(c.start({ timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'SERVER_IN_ERROR' });
    expect(c.status().lastError?.code).toBe('START_TIMEOUT');
    expect(c.status().lastExit).toMatchObject({ code: null, signal: 'SIGKILL' });
    expect(c.status().lastExit?.stderrTail).toContain('fixture stderr line 2');
  });

  it('an oversized message: SIGKILL, kept while RUNNING again', async () => {
    const c = client({ oversizedMessage: 50_000 }, { maxMessageBytes: 10_000 });
    await c.start();
    await expect(c.callTool('echo', { message: 'x' })).rejects.toMatchObject({ code: 'CONNECTION_LOST' });
    await waitForServerState(c, 'RUNNING', 10_000);
    expect(c.status().lastError?.code).toBe('MESSAGE_TOO_LARGE');
    expect(c.status().lastExit).toMatchObject({ code: null, signal: 'SIGKILL' });
  });

  it('the next end replaces it: a stop after a crash shows how the stop ended', async () => {
    const c = client({ crashAfter: 0 }, {});
    await c.start();
    await expect(c.callTool('echo', { message: 'x' })).rejects.toMatchObject({ code: 'CONNECTION_LOST' });
    await waitForServerState(c, 'RUNNING', 10_000);
    expect(c.status().lastExit).toMatchObject({ code: 1, signal: null });
    await c.stop();
    // The fixture exits 0 when its stdin closes: the first step of the clean stop.
    expect(c.status().lastExit).toMatchObject({ code: 0, signal: null });
    expect(c.status().lastError?.code).toBe('SERVER_CRASHED');
  });
});
