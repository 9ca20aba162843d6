/**
 * serveOverHttp on a real node:http server (127.0.0.1): the DNS-rebinding checks, the endpoint and
 * session rules, the startup line, resumable streams' event store, and a graceful, idempotent close.
 */
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { defineServer } from '../../../src/domain/define-server.js';
import { defineTool } from '../../../src/domain/define-tool.js';
import { LOOPBACK_HOSTNAMES, checkHostAndOrigin } from '../../../src/serve/http-guards.js';
import { MemoryEventStore } from '../../../src/serve/memory-event-store.js';
import { serveOverHttp, type HttpServedDomainServer, type ServeHttpOptions } from '../../../src/serve/serve-http.js';

const echo = defineServer({
  name: 'echo',
  tools: [
    defineTool({
      name: 'echo_tenant',
      domain: 'echo',
      category: 'read',
      description: 'Says which tenant it runs for.',
      input: { type: 'object', properties: {} },
      call: (_params, ctx) => ({ tenant: ctx.tenant }),
    }),
  ],
});

const served: HttpServedDomainServer[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(served.splice(0).map((server) => server.close()));
});

async function serve(options: ServeHttpOptions = { tenant: 'acme' }): Promise<HttpServedDomainServer> {
  const server = await serveOverHttp(echo, { announce: false, ...options });
  served.push(server);
  return server;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A raw POST with headers fetch would not let us set (Host). */
function post(url: string, headers: Record<string, string>, body = INITIALIZE, path?: string): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: path ?? target.pathname,
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        // An accepted initialize answers on an SSE stream that ends with the answer.
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return client;
}

describe('serveOverHttp', () => {
  it('listens on 127.0.0.1 by default and says single-tenant mode in its startup line', async () => {
    const lines: string[] = [];
    const server = await serve({ tenant: 'acme', announce: (line) => lines.push(line) });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(lines).toEqual([
      `echo: serving 1 tools over streamable HTTP at ${server.url} (single-tenant mode: every session is tenant "acme", no authentication)`,
    ]);
    const client = await connect(server.url);
    expect((await client.callTool({ name: 'echo_tenant', arguments: {} })).structuredContent).toEqual({ tenant: 'acme' });
    expect(server.sessionCount()).toBe(1);
  });

  it('needs exactly one of tenant and authenticate', async () => {
    await expect(serveOverHttp(echo, { announce: false })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(serveOverHttp(echo, { announce: false, tenant: 'a', authenticate: () => ({ tenant: 'a' }) })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('refuses a foreign Host or Origin with 403 (DNS rebinding) and accepts loopback names', async () => {
    const server = await serve();
    const port = new URL(server.url).port;
    expect((await post(server.url, { Host: 'evil.example.com', Origin: 'http://evil.example.com' })).status).toBe(403);
    expect((await post(server.url, { Host: `localhost:${port}`, Origin: 'http://evil.example.com' })).status).toBe(403);
    const ok = await post(server.url, { Host: `localhost:${port}`, Origin: `http://localhost:${port}` });
    expect(ok.status).toBe(200);
    expect((await post(server.url, { Host: `127.0.0.1:${port}` })).status).toBe(200);
  });

  it('can be told to allow other hosts and origins, or to skip the checks', async () => {
    const allowing = await serve({ tenant: 'acme', allowedHosts: ['roster.internal'], allowedOrigins: ['https://app.example.com'] });
    expect((await post(allowing.url, { Host: 'roster.internal:443', Origin: 'https://app.example.com' })).status).toBe(200);
    expect((await post(allowing.url, { Host: '127.0.0.1' })).status).toBe(403);
    const open = await serve({ tenant: 'acme', dnsRebindingProtection: false });
    expect((await post(open.url, { Host: 'evil.example.com' })).status).toBe(200);
  });

  it('answers 404 off its path and for an unknown session, 400 for a first request that is not initialize', async () => {
    const server = await serve();
    expect((await post(server.url, {}, INITIALIZE, '/elsewhere')).status).toBe(404);
    const unknown = await post(server.url, { 'mcp-session-id': 'nope' }, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    expect(unknown.status).toBe(404);
    expect((await post(server.url, {}, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }))).status).toBe(400);
    expect((await post(server.url, {}, '{not json')).status).toBe(400);
  });

  it('refuses sessions beyond maxSessions with 503', async () => {
    const server = await serve({ tenant: 'acme', maxSessions: 1 });
    await connect(server.url);
    expect((await post(server.url, {})).status).toBe(503);
  });

  it('closes gracefully with a session and its SSE stream open, once however often it is called', async () => {
    const server = await serveOverHttp(echo, { tenant: 'acme', announce: false });
    const client = await connect(server.url);
    await client.listTools();
    const ended: string[] = [];
    server.audit$.subscribe({ complete: () => ended.push('audit$') });
    const first = server.close();
    expect(server.close()).toBe(first);
    await first;
    expect(ended).toEqual(['audit$']);
    expect(server.sessionCount()).toBe(0);
    await expect(fetch(server.url, { method: 'POST', body: INITIALIZE })).rejects.toThrow();
  });

  it('drops a session that has had no open request for sessionIdleMs', { timeout: 30_000 }, async () => {
    const server = await serve({ tenant: 'acme', sessionIdleMs: 1_000 });
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(transport);
    await client.close(); // closes the GET stream too, without DELETE
    const deadline = Date.now() + 15_000;
    while (server.sessionCount() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.sessionCount()).toBe(0);
  });
});

describe('checkHostAndOrigin', () => {
  const allowed = LOOPBACK_HOSTNAMES;
  it('accepts every loopback name with any port, and refuses any other host name', () => {
    fc.assert(
      fc.property(fc.constantFrom(...allowed), fc.option(fc.integer({ min: 1, max: 65535 })), (name, port) => {
        expect(checkHostAndOrigin({ host: port === null ? name : `${name}:${port}` }, allowed, []).ok).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.domain(), (domain) => {
        fc.pre(!allowed.includes(domain.toLowerCase()));
        expect(checkHostAndOrigin({ host: domain }, allowed, []).ok).toBe(false);
        expect(checkHostAndOrigin({ host: 'localhost', origin: `http://${domain}` }, allowed, []).ok).toBe(false);
      }),
    );
  });

  it('refuses a missing or malformed Host', () => {
    expect(checkHostAndOrigin({}, allowed, []).ok).toBe(false);
    expect(checkHostAndOrigin({ host: 'localhost/evil' }, allowed, []).ok).toBe(false);
    expect(checkHostAndOrigin({ host: 'user@localhost' }, allowed, []).ok).toBe(false);
  });
});

describe('MemoryEventStore', () => {
  const message = (id: number): JSONRPCMessage => ({
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { level: 'info', data: id },
  });

  it('replays the events of one stream after a given id, skipping priming events', async () => {
    const store = new MemoryEventStore();
    const first = await store.storeEvent('a', {} as JSONRPCMessage);
    await store.storeEvent('a', message(1));
    await store.storeEvent('b', message(2));
    await store.storeEvent('a', message(3));
    const sent: unknown[] = [];
    expect(
      await store.replayEventsAfter(first, {
        send: (_id, m) => {
          sent.push(m);
          return Promise.resolve();
        },
      }),
    ).toBe('a');
    expect(sent).toEqual([message(1), message(3)]);
    expect(await store.getStreamIdForEventId(first)).toBe('a');
  });

  it('keeps at most maxEvents, dropping the oldest, and refuses to replay after a forgotten id', async () => {
    const store = new MemoryEventStore(2);
    const first = await store.storeEvent('a', message(1));
    await store.storeEvent('a', message(2));
    await store.storeEvent('a', message(3));
    expect(store.size).toBe(2);
    expect(await store.getStreamIdForEventId(first)).toBeUndefined();
    await expect(store.replayEventsAfter(first, { send: () => Promise.resolve() })).rejects.toThrow('unknown or too old');
  });
  const big = (id: number, size: number): JSONRPCMessage => ({
    jsonrpc: '2.0',
    id,
    result: { content: [{ type: 'text', text: 'x'.repeat(size) }] },
  });

  it('keeps at most maxBytes of messages, dropping the oldest first, and replays what it kept', async () => {
    const store = new MemoryEventStore({ maxBytes: 1024 * 1024 });
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(await store.storeEvent('a', big(i, 300_000)));
    // 40 events of 300 KB: 12 MB without the byte bound; three fit in 1 MiB.
    expect(store.retainedBytes).toBeLessThanOrEqual(1024 * 1024);
    expect(store.size).toBe(3);
    await expect(store.replayEventsAfter(ids[0]!, { send: () => Promise.resolve() })).rejects.toThrow('unknown or too old');
    const sent: unknown[] = [];
    await store.replayEventsAfter(ids[37]!, {
      send: (_id, m) => {
        sent.push((m as { id: number }).id);
        return Promise.resolve();
      },
    });
    expect(sent).toEqual([38, 39]);
  });

  it('sends but does not keep an event bigger than maxBytes, and forgets every older one so no replay skips it', async () => {
    const store = new MemoryEventStore({ maxBytes: 100_000 });
    const before = await store.storeEvent('a', big(1, 10));
    const huge = await store.storeEvent('a', big(2, 200_000));
    expect(store.retainedBytes).toBe(0);
    await expect(store.replayEventsAfter(before, { send: () => Promise.resolve() })).rejects.toThrow('unknown or too old');
    await store.storeEvent('a', big(3, 10));
    const sent: unknown[] = [];
    expect(
      await store.replayEventsAfter(huge, {
        send: (_id, m) => {
          sent.push((m as { id: number }).id);
          return Promise.resolve();
        },
      }),
    ).toBe('a');
    expect(sent).toEqual([3]);
  });
});
