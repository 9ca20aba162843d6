/**
 * A served HTTP session belongs to the principal who opened it. Alice (tenant acme, with the scope
 * for the restricted purge) opens a session on a real serveOverHttp on 127.0.0.1; Bob (same tenant,
 * no scope) steals her Mcp-Session-Id and tries to use it for a call, a stream and a DELETE: each is
 * answered like an unknown session, the purge never runs, and Alice's session goes on working.
 * A client's `_meta.actor` never becomes `ctx.actor`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { defineServer } from '../../src/domain/define-server.js';
import { defineTool } from '../../src/domain/define-tool.js';
import { serveOverHttp, type Authenticated, type HttpServedDomainServer, type ServeHttpOptions } from '../../src/serve/serve-http.js';

let purges: string[] = [];
const roster = defineServer({
  name: 'roster',
  tools: [
    defineTool({
      name: 'roster_whoami',
      domain: 'roster',
      category: 'read',
      description: 'Says who the call runs for.',
      input: { type: 'object', properties: {} },
      call: (_params, ctx) => ({ tenant: ctx.tenant, actor: ctx.actor ?? null }),
    }),
    defineTool({
      name: 'roster_purge',
      domain: 'roster',
      category: 'restricted',
      description: 'Deletes every shift of the tenant.',
      input: { type: 'object', properties: {} },
      call: (_params, ctx) => {
        purges.push(`${ctx.tenant}/${ctx.actor ?? '?'}`);
        return { purged: ctx.tenant, by: ctx.actor ?? null };
      },
    }),
  ],
});

const TOKENS: Record<string, Authenticated> = {
  alice: { tenant: 'acme', subject: 'alice', scopes: ['tool:roster_purge'] },
  bob: { tenant: 'acme', subject: 'bob', scopes: [] },
  // Two credentials of one tenant whose host names no subject.
  'plain-1': { tenant: 'acme', scopes: ['tool:roster_purge'] },
  'plain-2': { tenant: 'acme', scopes: [] },
};
const bearer: NonNullable<ServeHttpOptions['authenticate']> = (request) =>
  TOKENS[request.headers.authorization?.replace(/^Bearer /, '') ?? ''];

const served: HttpServedDomainServer[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(served.splice(0).map((server) => server.close()));
  purges = [];
});

async function serve(options: Partial<ServeHttpOptions> = {}): Promise<HttpServedDomainServer> {
  const server = await serveOverHttp(roster, { announce: false, authenticate: bearer, ...options });
  served.push(server);
  return server;
}

async function connect(url: string, token: string): Promise<{ client: Client; sessionId: string }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: token, version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, sessionId: transport.sessionId! };
}

const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const purgeCall = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'roster_purge', arguments: {} } });

async function call(client: Client, name: string, meta?: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: {}, ...(meta === undefined ? {} : { _meta: meta }) })) as CallToolResult;
}

describe("a served session is its principal's alone", () => {
  it("refuses Bob's restricted call on Alice's session id like an unknown session; the purge never runs and Alice's session still works", async () => {
    const server = await serve();
    const alice = await connect(server.url, 'alice');

    const stolen = await fetch(server.url, {
      method: 'POST',
      headers: { ...HEADERS, Authorization: 'Bearer bob', 'mcp-session-id': alice.sessionId },
      body: purgeCall,
    });
    const text = await stolen.text();
    expect(stolen.status).toBe(404);
    expect(text).not.toContain('purged');
    expect(text).toContain('Session not found');
    expect(purges).toEqual([]);

    // The same answer as for an id that never existed: the refusal tells Bob nothing about live ids.
    const unknown = await fetch(server.url, {
      method: 'POST',
      headers: { ...HEADERS, Authorization: 'Bearer bob', 'mcp-session-id': 'no-such-session' },
      body: purgeCall,
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe(text);

    expect((await call(alice.client, 'roster_whoami')).structuredContent).toEqual({ tenant: 'acme', actor: 'alice' });
    expect((await call(alice.client, 'roster_purge')).structuredContent).toEqual({ purged: 'acme', by: 'alice' });
    expect(purges).toEqual(['acme/alice']);
  });

  it("refuses Bob's GET stream and DELETE on Alice's session id; her session stays open", async () => {
    const server = await serve();
    const alice = await connect(server.url, 'alice');
    const stream = await fetch(server.url, {
      method: 'GET',
      headers: {
        Accept: 'text/event-stream',
        Authorization: 'Bearer bob',
        'mcp-session-id': alice.sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
    });
    expect(stream.status).toBe(404);
    await stream.body?.cancel();
    const deleted = await fetch(server.url, {
      method: 'DELETE',
      headers: { Authorization: 'Bearer bob', 'mcp-session-id': alice.sessionId, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(deleted.status).toBe(404);
    expect(server.sessionCount()).toBe(1);
    expect((await call(alice.client, 'roster_whoami')).structuredContent).toEqual({ tenant: 'acme', actor: 'alice' });
  });

  it('binds a session to the exact Authorization credential when authenticate names no subject', async () => {
    const server = await serve();
    const first = await connect(server.url, 'plain-1');
    const stolen = await fetch(server.url, {
      method: 'POST',
      headers: { ...HEADERS, Authorization: 'Bearer plain-2', 'mcp-session-id': first.sessionId },
      body: purgeCall,
    });
    expect(stolen.status).toBe(404);
    expect(purges).toEqual([]);
    expect((await call(first.client, 'roster_purge')).structuredContent).toEqual({ purged: 'acme', by: null });
  });

  it('opens no session it cannot bind: no subject and no Authorization header (a cookie-authenticating host)', async () => {
    const server = await serve({ authenticate: (request) => (request.headers.cookie === 'sid=1' ? { tenant: 'acme' } : undefined) });
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const answer = await fetch(server.url, { method: 'POST', headers: { ...HEADERS, Cookie: 'sid=1' }, body: initialize });
    expect(answer.status).toBe(500);
    expect(await answer.text()).toContain('return { subject } from authenticate');
    expect(server.sessionCount()).toBe(0);

    const bound = await serve({
      authenticate: (request) =>
        request.headers.cookie?.startsWith('sid=') === true ? { tenant: 'acme', subject: request.headers.cookie } : undefined,
    });
    const ok = await fetch(bound.url, { method: 'POST', headers: { ...HEADERS, Cookie: 'sid=1' }, body: initialize });
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
    expect(bound.sessionCount()).toBe(1);
  });
});

describe('ctx.actor comes from the authenticated subject only', () => {
  it("ignores a forged _meta.actor: Bob's call naming alice runs as bob, and a subjectless credential's as nobody", async () => {
    const server = await serve();
    const bob = await connect(server.url, 'bob');
    expect((await call(bob.client, 'roster_whoami', { actor: 'alice' })).structuredContent).toEqual({ tenant: 'acme', actor: 'bob' });
    const plain = await connect(server.url, 'plain-1');
    expect((await call(plain.client, 'roster_whoami', { actor: 'alice' })).structuredContent).toEqual({ tenant: 'acme', actor: null });
    expect((await call(plain.client, 'roster_purge', { actor: 'alice' })).structuredContent).toEqual({ purged: 'acme', by: null });
  });

  it('reads the deprecated actor of authenticate as the subject (ctx.actor and the binding)', async () => {
    /* eslint-disable @typescript-eslint/no-deprecated -- the test of the deprecated `actor` itself: it must still be read as the subject */
    const server = await serve({
      authenticate: (request) =>
        request.headers.authorization === 'Bearer old'
          ? { tenant: 'acme', actor: 'carol' }
          : request.headers.authorization === 'Bearer old-2'
            ? { tenant: 'acme', actor: 'dave' }
            : undefined,
    });
    /* eslint-enable @typescript-eslint/no-deprecated */
    const carol = await connect(server.url, 'old');
    expect((await call(carol.client, 'roster_whoami', { actor: 'alice' })).structuredContent).toEqual({ tenant: 'acme', actor: 'carol' });
    const stolen = await fetch(server.url, {
      method: 'POST',
      headers: { ...HEADERS, Authorization: 'Bearer old-2', 'mcp-session-id': carol.sessionId },
      body: purgeCall,
    });
    expect(stolen.status).toBe(404);
  });
});
