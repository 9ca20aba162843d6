/**
 * A server answering initialize with a protocol version this client does not speak cannot get
 * better by restarting: ERROR at once, one spawn, a message naming both versions. The server
 * answered with a result, not a JSON-RPC error, so it is HANDSHAKE_FAILED (`details.kind:
 * 'protocolVersion'`), never PROTOCOL_ERROR.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InitializeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { McpClient } from '../../src/client/mcp-client.js';
import { fixtureServerConfig } from '../../src/testing/fixture.js';
import { lowLevelServer } from '../support/low-level-server.js';
import { rejection } from '../support/rejection.js';

const clients: McpClient[] = [];
const servers: HttpServer[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.dispose();
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
});

/** A streamable-HTTP MCP server on 127.0.0.1 that answers initialize with `version`; counts the initializes. */
async function oldHttpServer(version: string): Promise<{ url: string; initializes: () => number }> {
  let initializes = 0;
  const http = createServer((req, res) => {
    // Stateless: a server and a transport per request, as the SDK's stateless example does.
    const server = lowLevelServer({ name: 'old-http', version: '1.0.0' }, { tools: {} });
    server.setRequestHandler(InitializeRequestSchema, () => {
      initializes += 1;
      return { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: 'old-http', version: '1.0.0' } };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  servers.push(http);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, initializes: () => initializes };
}

describe('a protocol-version mismatch', () => {
  it('goes to ERROR without retries, naming both versions', async () => {
    const states: string[] = [];
    const c = new McpClient(fixtureServerConfig({ name: 'old', protocolVersion: '1999-01-01', extra: { backoff: { initialMs: 10 } } }));
    clients.push(c);
    c.state$.subscribe((s) => states.push(s));
    const failed = await rejection(c.start({ timeoutMs: 15_000 }));
    expect(failed.code).toBe('SERVER_IN_ERROR');
    expect(c.state).toBe('ERROR');
    const last = c.status().lastError!;
    expect(last.code).toBe('HANDSHAKE_FAILED');
    expect(last.details).toMatchObject({ kind: 'protocolVersion', serverVersion: '1999-01-01', clientVersion: LATEST_PROTOCOL_VERSION });
    expect(last.message).toContain('1999-01-01');
    expect(last.message).toContain(LATEST_PROTOCOL_VERSION);
    expect(c.status().restarts).toBe(0);
    expect(states.filter((s) => s === 'STARTING')).toHaveLength(1);
  });

  it('over streamable HTTP too: ERROR at once, one initialize, HANDSHAKE_FAILED naming both versions', async () => {
    const old = await oldHttpServer('1999-01-01');
    const c = new McpClient({ name: 'old-http', url: old.url, transport: 'streamable-http', backoff: { initialMs: 10 } });
    clients.push(c);
    const failed = await rejection(c.start({ timeoutMs: 15_000 }));
    expect(failed.code).toBe('SERVER_IN_ERROR');
    const last = c.status().lastError!;
    expect(last.code).toBe('HANDSHAKE_FAILED');
    expect(last.details).toMatchObject({ kind: 'protocolVersion', serverVersion: '1999-01-01' });
    expect(c.status().restarts).toBe(0);
    expect(old.initializes()).toBe(1);
  });
});
