/**
 * What the served-HTTP tests share: a domain server answering `size` characters, tokens that name
 * tenant and subject (`a-1`: tenant a, subject a-1), a raw `initialize`, and an SDK client holding a
 * bearer token — all closed after each test.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach } from 'vitest';
import { defineServer, type DomainServer } from '../../src/domain/define-server.js';
import { defineTool } from '../../src/domain/define-tool.js';
import { serveOverHttp, type HttpServedDomainServer, type ServeHttpOptions } from '../../src/serve/serve-http.js';

/** A server whose `blob_make` answers a string of `size` characters (at most `maxSize`). */
export function blobServer(maxSize: number): DomainServer {
  return defineServer({
    name: 'blob',
    tools: [
      defineTool({
        name: 'blob_make',
        domain: 'blob',
        category: 'read',
        description: 'Answers with a string of `size` characters.',
        input: {
          type: 'object',
          properties: { size: { type: 'integer', minimum: 0, maximum: maxSize }, pad: { type: 'string' } },
          required: ['size'],
        },
        call: ({ size }: { size: number }) => ({ data: 'x'.repeat(size) }),
      }),
    ],
  });
}

/** Tenant from the token's prefix, subject from the whole token: `a-1` is tenant a, subject a-1. */
export const tokenAuthenticate: NonNullable<ServeHttpOptions['authenticate']> = (request) => {
  const token = request.headers.authorization?.replace(/^Bearer /, '') ?? '';
  return /^[a-z]-\d+$/.test(token) ? { tenant: token.slice(0, 1), subject: token } : undefined;
};

export const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A raw initialize with `token`; its HTTP status. */
export async function initialize(url: string, token: string): Promise<number> {
  const answer = await fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, Authorization: `Bearer ${token}` }, body: INITIALIZE });
  await answer.arrayBuffer();
  return answer.status;
}

/** Serves `server` with `tokenAuthenticate` and connects clients; everything is closed after each test. */
export function servedHarness(server: DomainServer): {
  serve(options?: Partial<ServeHttpOptions>): Promise<HttpServedDomainServer>;
  connect(url: string, token: string): Promise<{ client: Client; sessionId: string }>;
} {
  const served: HttpServedDomainServer[] = [];
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all(served.splice(0).map((running) => running.close()));
  });
  return {
    async serve(options = {}) {
      const running = await serveOverHttp(server, { announce: false, authenticate: tokenAuthenticate, ...options });
      served.push(running);
      return running;
    },
    async connect(url, token) {
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
      const client = new Client({ name: token, version: '1.0.0' });
      await client.connect(transport);
      clients.push(client);
      return { client, sessionId: transport.sessionId! };
    },
  };
}
