/** A supervised server over a Transport the host makes: the SDK's InMemoryTransport to an SDK McpServer. */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describe, expect, it } from 'vitest';
import { McpClient } from '../../../src/client/mcp-client.js';
import { connectOverTransport, faultyTransport, waitForServerState } from '../../../src/testing/index.js';
import { anyOf } from '../../support/matchers.js';

function serverPair(made: { server: McpServer }[]): () => Promise<Transport> {
  return async () => {
    const server = new McpServer({ name: 'memory', version: '1.0.0' });
    server.registerTool('echo', { inputSchema: {} }, () => Promise.resolve({ content: [{ type: 'text', text: 'hi' }] }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    made.push({ server });
    return clientSide;
  };
}

describe('connectOverTransport', () => {
  it('runs the supervised server over a transport of the host, and makes a new one after the server closes it', async () => {
    const made: { server: McpServer }[] = [];
    const client = new McpClient(
      { name: 'memory', command: 'in-process', backoff: { initialMs: 10, jitter: 0 } },
      { actors: { connectServer: connectOverTransport(serverPair(made)) } },
    );
    expect((await client.callTool('echo', {})).content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(client.status().pid).toBeUndefined();
    await made[0]!.server.close();
    await waitForServerState(client, 'STARTING', 5_000);
    await waitForServerState(client, 'RUNNING', 5_000);
    expect(made).toHaveLength(2);
    // A close with no error is a normal end: a permanent server is restarted, and says why.
    expect(client.status().lastError?.code).toBe('SERVER_CRASHED');
    expect(client.status().lastError?.message).toContain('closed');
    await client.dispose();
  });

  it('a stop while the handshake waits closes the transport once and leaves the server STOPPED', async () => {
    // A transport that swallows every message: the initialize request is never answered.
    let closes = 0;
    const silent: Transport = {
      start: () => Promise.resolve(),
      send: () => Promise.resolve(),
      close: () =>
        new Promise<void>((resolve) => {
          closes += 1;
          silent.onclose?.();
          resolve();
        }),
    };
    const client = new McpClient(
      { name: 'silent', command: 'in-process', startTimeoutMs: 60_000 },
      { actors: { connectServer: connectOverTransport(() => silent) } },
    );
    const starting = client.start().catch((error: unknown) => error);
    await waitForServerState(client, 'STARTING', 5_000);
    await client.stop();
    expect(await starting).toMatchObject({ code: anyOf(String) });
    expect(closes).toBe(1);
    expect(client.status().state).toBe('STOPPED');
    await client.dispose();
    expect(closes).toBe(1);
  });

  it('a transport factory that throws is SPAWN_FAILED, not retried', async () => {
    const client = new McpClient(
      { name: 'broken', command: 'in-process' },
      {
        actors: {
          connectServer: connectOverTransport(() => {
            throw new Error('no transport today');
          }),
        },
      },
    );
    await expect(client.start()).rejects.toMatchObject({ code: 'SERVER_IN_ERROR' });
    expect(client.status().lastError).toMatchObject({ code: 'SPAWN_FAILED' });
    expect(client.status().lastError?.message).toContain('no transport today');
    await client.dispose();
  });

  it('works through faultyTransport: a disconnect after N messages is a crash the machine recovers from', async () => {
    const made: { server: McpServer }[] = [];
    const pair = serverPair(made);
    let first = true;
    const client = new McpClient(
      { name: 'faulty', command: 'in-process', backoff: { initialMs: 10, jitter: 0 } },
      {
        actors: {
          connectServer: connectOverTransport(async () => {
            const inner = await pair();
            if (!first) return inner;
            first = false;
            return faultyTransport(inner, { seed: 1, disconnectAfter: 5, log: () => undefined });
          }),
        },
      },
    );
    expect((await client.callTool('echo', {})).content).toEqual([{ type: 'text', text: 'hi' }]);
    await expect(client.callTool('echo', {})).rejects.toMatchObject({ code: 'CONNECTION_LOST' });
    await waitForServerState(client, 'RUNNING', 5_000);
    expect((await client.callTool('echo', {})).content).toEqual([{ type: 'text', text: 'hi' }]);
    await client.dispose();
  });

  it("hands the factory the server's real configuration (its env), while the machine's copy stays redacted", async () => {
    // Before the fix the factory got the machine's redacted copy: a stdio transport built from it
    // ran the server with every env value "[redacted]".
    const seen: { env: Readonly<Record<string, string>>; headers: Readonly<Record<string, string>> }[] = [];
    const pair = serverPair([]);
    const client = new McpClient(
      { name: 'secretive', command: 'in-process', env: { API_TOKEN: 'tok-123456789' } },
      {
        actors: {
          connectServer: connectOverTransport((config) => {
            seen.push({ env: config.env, headers: config.headers });
            return pair();
          }),
        },
      },
    );
    expect((await client.callTool('echo', {})).content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(seen).toEqual([{ env: { API_TOKEN: 'tok-123456789' }, headers: {} }]);
    const shown = JSON.stringify(client.actor.getSnapshot().context.config);
    expect(shown).not.toContain('tok-123456789');
    expect(shown).toContain('API_TOKEN');
    await client.dispose();
  });
});
