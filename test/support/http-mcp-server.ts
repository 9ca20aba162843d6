/**
 * Real MCP servers over HTTP on 127.0.0.1 for integration tests, built from the SDK's own server
 * transports on node:http: streamable HTTP (stateful, one transport per session) and the older
 * HTTP+SSE. Tools: `echo`, `ask` (elicitation/create back to the client), `sample`
 * (sampling/createMessage back to the client). The test can expire every session, stop the
 * server, and start it again on the same port.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { lowLevelServer, type LowLevelServer } from './low-level-server.js';

export interface HttpMcpServerOptions {
  readonly kind?: 'streamable-http' | 'sse';
  readonly port?: number;
}

export interface RequestLog {
  method: string;
  path: string;
  status?: number;
  headers: Record<string, string | string[] | undefined>;
}

export interface HttpMcpServer {
  readonly url: string;
  readonly port: number;
  readonly requests: RequestLog[];
  /** Initialize requests seen (one per session). */
  initializes(): number;
  /** Forgets every session: later requests carrying their ids get 404. */
  expireSessions(): Promise<void>;
  close(): Promise<void>;
}

export function mcpServer(): LowLevelServer {
  const server = lowLevelServer({ name: 'http-test-server', version: '1.0.0' }, { tools: {} });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: 'echo', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } },
      { name: 'ask', inputSchema: { type: 'object', properties: {} } },
      { name: 'sample', inputSchema: { type: 'object', properties: {} } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    if (name === 'echo') {
      const message = args?.message ?? '';
      return { content: [{ type: 'text', text: `echo: ${typeof message === 'string' ? message : JSON.stringify(message)}` }] };
    }
    if (name === 'ask') {
      const answer = await server.elicitInput(
        {
          message: 'Your name?',
          requestedSchema: {
            type: 'object',
            properties: { name: { type: 'string' }, colour: { type: 'string', default: 'blue' } },
          },
        },
        { relatedRequestId: extra.requestId },
      );
      return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
    }
    if (name === 'sample') {
      const answer = await server.createMessage(
        { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 10 },
        { relatedRequestId: extra.requestId },
      );
      return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
    }
    return { content: [{ type: 'text', text: `unknown tool ${name}` }], isError: true };
  });
  return server;
}

/** The streamable-HTTP request handler: one transport (and one Server) per session. */
export function streamableHandler(): {
  handle: (request: IncomingMessage, response: ServerResponse, body: unknown) => Promise<void>;
  expire: () => Promise<void>;
  initializes: () => number;
} {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let initializes = 0;
  return {
    initializes: () => initializes,
    expire: async () => {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map((transport) => transport.close().catch(() => undefined)));
    },
    handle: async (request, response, body) => {
      const sessionId = request.headers['mcp-session-id'];
      if (typeof sessionId === 'string') {
        const transport = sessions.get(sessionId);
        if (!transport) {
          response
            .writeHead(404, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
          return;
        }
        await transport.handleRequest(request, response, body);
        return;
      }
      if (request.method !== 'POST') {
        response.writeHead(400).end();
        return;
      }
      initializes += 1;
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await mcpServer().connect(transport);
      await transport.handleRequest(request, response, body);
    },
  };
}

export async function readJson(request: IncomingMessage): Promise<unknown> {
  if (request.method !== 'POST') return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as unknown) : undefined;
}

export async function listen(server: HttpServer, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

export async function closeHttp(server: HttpServer): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export async function startHttpMcpServer(options: HttpMcpServerOptions = {}): Promise<HttpMcpServer> {
  const kind = options.kind ?? 'streamable-http';
  const requests: RequestLog[] = [];
  const streamable = streamableHandler();
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the older HTTP+SSE on purpose: what the client's `sse` transport is tested against
  const sseSessions = new Map<string, SSEServerTransport>();
  let sseInitializes = 0;
  const http = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const entry: RequestLog = { method: request.method ?? '', path: url.pathname, headers: { ...request.headers } };
    requests.push(entry);
    response.on('finish', () => (entry.status = response.statusCode));
    void (async () => {
      if (kind === 'sse') {
        if (request.method === 'GET' && url.pathname === '/sse') {
          sseInitializes += 1;
          // eslint-disable-next-line @typescript-eslint/no-deprecated -- the older HTTP+SSE on purpose (see sseSessions)
          const transport = new SSEServerTransport('/messages', response);
          sseSessions.set(transport.sessionId, transport);
          transport.onclose = () => sseSessions.delete(transport.sessionId);
          await mcpServer().connect(transport);
          return;
        }
        if (request.method === 'POST' && url.pathname === '/messages') {
          const transport = sseSessions.get(url.searchParams.get('sessionId') ?? '');
          if (!transport) return void response.writeHead(404).end();
          await transport.handlePostMessage(request, response, await readJson(request));
          return;
        }
        // An SSE-only server knows nothing of streamable HTTP's POST to its endpoint.
        response.writeHead(405).end();
        return;
      }
      if (url.pathname !== '/mcp') return void response.writeHead(404).end();
      await streamable.handle(request, response, await readJson(request));
    })().catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  const port = await listen(http, options.port ?? 0);
  return {
    url: kind === 'sse' ? `http://127.0.0.1:${port}/sse` : `http://127.0.0.1:${port}/mcp`,
    port,
    requests,
    initializes: () => (kind === 'sse' ? sseInitializes : streamable.initializes()),
    expireSessions: () => streamable.expire(),
    close: async () => {
      await streamable.expire();
      for (const transport of sseSessions.values()) await transport.close().catch(() => undefined);
      await closeHttp(http);
    },
  };
}
