/**
 * The attacker's floods against serveOverHttp, as reported, on a real server on 127.0.0.1:
 * hundreds of initializes from one tenant (one at a time and all at once) must leave another
 * tenant room, and one session sending dozens of multi-megabyte calls must leave the server holding
 * no more than its per-session byte budget. Too heavy for npm test (hundreds of sessions, ~250 MB
 * sent); run with `npx vitest run --config vitest.system.config.ts test/system/served-floods.system.ts`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { defineServer } from '../../src/inprocess/define-server.js';
import { defineTool } from '../../src/inprocess/define-tool.js';
import { DEFAULT_MAX_EVENT_BYTES } from '../../src/inprocess/memory-event-store.js';
import { serveOverHttp, type HttpServedDomainServer, type ServeHttpOptions } from '../../src/inprocess/serve-http.js';

const blob = defineServer({
  name: 'blob',
  tools: [
    defineTool({
      name: 'blob_make',
      domain: 'blob',
      category: 'read',
      description: 'Answers with a string of `size` characters.',
      input: { type: 'object', properties: { size: { type: 'integer', minimum: 0, maximum: 2_000_000 } }, required: ['size'] },
      call: ({ size }: { size: number }) => ({ data: 'x'.repeat(size) }),
    }),
  ],
});

// Tenant from the token's prefix, subject from the whole token: `a-1` is tenant a, subject a-1.
const authenticate: NonNullable<ServeHttpOptions['authenticate']> = (request) => {
  const token = request.headers.authorization?.replace(/^Bearer /, '') ?? '';
  return /^[a-z]-\d+$/.test(token) ? { tenant: token.slice(0, 1), subject: token } : undefined;
};

const served: HttpServedDomainServer[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(served.splice(0).map((server) => server.close()));
});

async function serve(options: Partial<ServeHttpOptions> = {}): Promise<HttpServedDomainServer> {
  const server = await serveOverHttp(blob, { announce: false, authenticate, ...options });
  served.push(server);
  return server;
}

const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

async function initialize(url: string, token: string): Promise<number> {
  const answer = await fetch(url, { method: 'POST', headers: { ...HEADERS, Authorization: `Bearer ${token}` }, body: INITIALIZE });
  await answer.arrayBuffer();
  return answer.status;
}

function tally(statuses: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: token, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

describe('one tenant flooding initialize', () => {
  it("opens 200 sessions of tenant a one after another: a gets its 100, b's initialize still succeeds", async () => {
    const server = await serve({ maxSessions: 200 });
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) statuses.push(await initialize(server.url, `a-${i}`));
    expect(tally(statuses)).toEqual({ 200: 100, 429: 100 });
    expect(await initialize(server.url, 'b-1')).toBe(200);
    expect(server.sessionCount('a')).toBe(100);
    expect(server.sessionCount('b')).toBe(1);
  });

  it('opens 300 sessions of tenant a all at once: exactly its quota is admitted, and b still gets in', async () => {
    const server = await serve({ maxSessions: 200 });
    const statuses = await Promise.all(Array.from({ length: 300 }, (_, i) => initialize(server.url, `a-${i}`)));
    expect(tally(statuses)).toEqual({ 200: 100, 429: 200 });
    expect(await initialize(server.url, 'b-1')).toBe(200);
    expect(server.sessionCount()).toBe(101);
  });
});

describe('one session flooding its event store', () => {
  it('keeps at most the default byte budget after 60 calls naming a 3.9 MB unknown tool and 60 answers of 1 MB', async () => {
    const server = await serve();
    const client = await connect(server.url, 'a-1');
    const name = 'n'.repeat(3_900_000);
    for (let i = 0; i < 60; i++) {
      await expect(client.callTool({ name, arguments: {} })).rejects.toThrow('Unknown tool');
    }
    expect(server.retainedEventBytes()).toBeLessThanOrEqual(DEFAULT_MAX_EVENT_BYTES);
    for (let i = 0; i < 60; i++) {
      const answer = (await client.callTool({ name: 'blob_make', arguments: { size: 500_000 } })) as CallToolResult;
      expect((answer.structuredContent as { data: string }).data).toHaveLength(500_000);
    }
    // 60 answers of about 1 MB each (text and structured content): 60 MB without the byte budget.
    expect(server.retainedEventBytes()).toBeLessThanOrEqual(DEFAULT_MAX_EVENT_BYTES);
  });
});
