/**
 * Remote servers under supervision, against real HTTP servers on 127.0.0.1 (the SDK's own
 * streamable-HTTP and SSE server transports on node:http): handshake and calls, an expired session,
 * a server restarted on the same port, a refused connection, the SSE fallback, idle stop ending
 * the session with DELETE.
 */
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/mcp-client.js';
import { isMcpActorsError } from '../../src/errors/mcp-actors-error.js';
import { closedAfterEach } from '../support/closing.js';
import { rejection } from '../support/rejection.js';
import { closeHttp, listen, startHttpMcpServer, type HttpMcpServer } from '../support/http-mcp-server.js';
import { waitUntil } from '../support/wait.js';

const closing = closedAfterEach();

async function server(options: Parameters<typeof startHttpMcpServer>[0] = {}): Promise<HttpMcpServer> {
  // A test may have closed it already (a server restarted on the same port).
  return closing(await startHttpMcpServer(options), (started) => started.close().catch(() => undefined));
}

const client = (...args: ConstructorParameters<typeof McpClient>): McpClient =>
  closing(new McpClient(...args), (created) => created.dispose());

const fast = { backoff: { initialMs: 20, maxMs: 100, jitter: 0 }, startTimeoutMs: 10_000, callTimeoutMs: 10_000 } as const;

function text(result: { content: unknown[] }): string {
  return String((result.content[0] as { text?: unknown }).text);
}

/** A call that may fail once, because the server went away under it; the one after must succeed. */
async function callAfterLoss(mcp: McpClient): Promise<string> {
  try {
    return text(await mcp.callTool('echo', { message: 'again' }));
  } catch (error) {
    expect(isMcpActorsError(error) && ['CONNECTION_LOST', 'SERVER_CRASHED'].includes(error.code)).toBe(true);
    return text(await mcp.callTool('echo', { message: 'again' }));
  }
}

describe('remote servers over streamable HTTP', () => {
  it('connects, lists tools and calls one, sending the configured headers', async () => {
    const http = await server();
    const mcp = client({ name: 'remote', url: http.url, headers: { 'X-Team': 'blue' }, ...fast });
    expect((await mcp.listTools()).map((tool) => tool.name)).toEqual(['echo', 'ask', 'sample']);
    expect(text(await mcp.callTool('echo', { message: 'hi' }))).toBe('echo: hi');
    expect(mcp.state).toBe('RUNNING');
    expect(http.requests.filter((r) => r.method === 'POST').every((r) => r.headers['x-team'] === 'blue')).toBe(true);
  });

  it('starts a fresh session by itself when the session expired (404), and the next call succeeds', async () => {
    const http = await server();
    const mcp = client({ name: 'remote', url: http.url, ...fast });
    expect(text(await mcp.callTool('echo', { message: 'one' }))).toBe('echo: one');
    await http.expireSessions();
    expect(await callAfterLoss(mcp)).toBe('echo: again');
    expect(http.initializes()).toBe(2);
    expect(http.requests.some((r) => r.status === 404)).toBe(true);
    expect(mcp.status().restarts).toBeGreaterThanOrEqual(1);
  });

  it('reconnects to a server restarted on the same port', async () => {
    const first = await server();
    const mcp = client({ name: 'remote', url: first.url, ...fast });
    expect(text(await mcp.callTool('echo', { message: 'one' }))).toBe('echo: one');
    await first.close();
    const second = await server({ port: first.port });
    expect(await callAfterLoss(mcp)).toBe('echo: again');
    expect(second.initializes()).toBe(1);
    expect(mcp.state).toBe('RUNNING');
  });

  it('backs off on a refused connection, then goes to ERROR after the intensity window', async () => {
    const probe = createServer();
    const port = await listen(probe, 0);
    await closeHttp(probe); // nothing listens there now
    const mcp = client({ name: 'gone', url: `http://127.0.0.1:${port}/mcp`, maxRestarts: 2, ...fast });
    const states: string[] = [];
    mcp.state$.subscribe((state) => states.push(state));
    expect((await rejection(mcp.start())).code).toBe('SERVER_IN_ERROR');
    expect(mcp.state).toBe('ERROR');
    expect(mcp.status().restarts).toBe(2);
    expect(mcp.status().lastError?.code).toBe('HANDSHAKE_FAILED');
    expect(mcp.status().lastError?.message).toContain('nothing answers there');
    expect(states).toEqual(['STOPPED', 'STARTING', 'ERROR']);
  });

  it('ends the session with DELETE on idle stop, and a later call opens a new one', async () => {
    const http = await server();
    const mcp = client({ name: 'remote', url: http.url, idleStopMs: 150, ...fast });
    expect(text(await mcp.callTool('echo', { message: 'one' }))).toBe('echo: one');
    await waitUntil(() => mcp.state === 'STOPPED', 'the idle stop');
    await waitUntil(() => http.requests.some((r) => r.method === 'DELETE'), 'the DELETE');
    const deleted = http.requests.find((r) => r.method === 'DELETE');
    expect(deleted?.headers['mcp-session-id']).toBeTypeOf('string');
    expect(text(await mcp.callTool('echo', { message: 'two' }))).toBe('echo: two');
    expect(http.initializes()).toBe(2);
  });
});

describe('remote servers over SSE', () => {
  it('speaks the older HTTP+SSE transport when asked to', async () => {
    const http = await server({ kind: 'sse' });
    const mcp = client({ name: 'old', url: http.url, transport: 'sse', ...fast });
    expect(text(await mcp.callTool('echo', { message: 'hi' }))).toBe('echo: hi');
  });

  it('falls back to SSE when transport is left out and the first POST gets a 4xx', async () => {
    const http = await server({ kind: 'sse' });
    const mcp = client({ name: 'old', url: http.url, ...fast });
    expect(text(await mcp.callTool('echo', { message: 'hi' }))).toBe('echo: hi');
    expect(http.requests[0]).toMatchObject({ method: 'POST', status: 405 });
    expect(http.requests.some((r) => r.method === 'GET' && r.path === '/sse')).toBe(true);
  });

  it('does not fall back when streamable-http is written, or when sseFallback is off', async () => {
    const http = await server({ kind: 'sse' });
    for (const config of [{ transport: 'streamable-http' as const }, { sseFallback: false }]) {
      const mcp = client({ name: 'old', url: http.url, restart: 'temporary', ...fast, ...config });
      expect((await rejection(mcp.start())).code).toBe('SERVER_IN_ERROR');
      expect(mcp.status().lastError?.code).toBe('HANDSHAKE_FAILED');
    }
    expect(http.requests.some((r) => r.method === 'GET')).toBe(false);
  });
});
