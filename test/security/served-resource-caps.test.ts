/**
 * A served HTTP endpoint's resources are capped per tenant and in bytes, on a real serveOverHttp on
 * 127.0.0.1: a tenant at its session quota cannot make another tenant's initialize fail; a big
 * body is refused with 413 on the session as well as at initialize; a session's event store keeps
 * a bounded number of bytes however big the answers; a huge unknown tool name is not echoed back
 * whole. (Floods of hundreds of sessions and megabytes: test/system/served-floods.system.ts.)
 */
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { ServedAuditRecord } from '../../src/serve/served-access.js';
import { blobServer, initialize, MCP_HEADERS as HEADERS, servedHarness } from '../support/served-http.js';

const harness = servedHarness(blobServer(1_000_000));
const serve: typeof harness.serve = (options) => harness.serve(options);
const connect: typeof harness.connect = (url, token) => harness.connect(url, token);

describe('sessions are capped per tenant', () => {
  it("keeps tenant a at its quota with 429 while tenant b's initialize still succeeds", async () => {
    const server = await serve({ maxSessions: 4, maxSessionsPerTenant: 2 });
    expect((await Promise.all(['a-1', 'a-2', 'a-3', 'a-4'].map((token) => initialize(server.url, token)))).sort()).toEqual([
      200, 200, 429, 429,
    ]);
    expect(server.sessionCount('a')).toBe(2);
    expect(await initialize(server.url, 'b-1')).toBe(200);
    expect(await initialize(server.url, 'b-2')).toBe(200);
    expect(server.sessionCount('b')).toBe(2);
    // The server-wide cap still holds for everyone.
    expect(await initialize(server.url, 'c-1')).toBe(503);
  });

  it('gives a closed session back to its tenant', async () => {
    const server = await serve({ maxSessionsPerTenant: 1 });
    const first = await connect(server.url, 'a-1');
    expect(await initialize(server.url, 'a-2')).toBe(429);
    await (first.client.transport as StreamableHTTPClientTransport).terminateSession();
    expect(server.sessionCount('a')).toBe(0);
    expect(await initialize(server.url, 'a-2')).toBe(200);
  });
});

describe('bytes are capped', () => {
  it('refuses a POST body over maxBodyBytes with 413, at initialize and within a session', async () => {
    const server = await serve({ maxBodyBytes: 64 * 1024 });
    const padded = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x'.repeat(70_000), version: '1' } },
    });
    const big = await fetch(server.url, { method: 'POST', headers: { ...HEADERS, Authorization: 'Bearer a-1' }, body: padded });
    expect(big.status).toBe(413);
    await big.arrayBuffer();

    const { client, sessionId } = await connect(server.url, 'a-1');
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'blob_make', arguments: { size: 1, pad: 'y'.repeat(70_000) } },
    });
    const refused = await fetch(server.url, {
      method: 'POST',
      headers: { ...HEADERS, Authorization: 'Bearer a-1', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
      body: call,
    });
    expect(refused.status).toBe(413);
    await refused.arrayBuffer();
    expect(((await client.callTool({ name: 'blob_make', arguments: { size: 3 } })) as CallToolResult).structuredContent).toEqual({
      data: 'xxx',
    });
  });

  it("keeps a session's event store within maxEventBytesPerSession however many big answers it sends", async () => {
    const cap = 256 * 1024;
    const server = await serve({ maxEventBytesPerSession: cap });
    const { client } = await connect(server.url, 'a-1');
    for (let i = 0; i < 8; i++) {
      const answer = (await client.callTool({ name: 'blob_make', arguments: { size: 100_000 } })) as CallToolResult;
      expect((answer.structuredContent as { data: string }).data).toHaveLength(100_000);
    }
    // 8 answers of 200 KB (content and structured content) would be 1.6 MB kept.
    expect(server.retainedEventBytes()).toBeGreaterThan(0);
    expect(server.retainedEventBytes()).toBeLessThanOrEqual(cap);
  });

  it('echoes a huge unknown tool name neither in the error nor in the audit record', async () => {
    const audit: ServedAuditRecord[] = [];
    const server = await serve({ onAudit: (record) => audit.push(record) });
    const { client } = await connect(server.url, 'a-1');
    const name = 'n'.repeat(500_000);
    const error = await client.callTool({ name, arguments: {} }).then(
      () => undefined,
      (thrown: unknown) => thrown as Error,
    );
    expect(error?.message).toContain('Unknown tool');
    expect(error!.message.length).toBeLessThan(1_000);
    expect(audit).toHaveLength(1);
    expect(audit[0]!.tool.length).toBeLessThan(1_000);
    expect(audit[0]!.tool).toContain('500000 characters');
  });
});
