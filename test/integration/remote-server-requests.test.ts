/**
 * Questions a server asks back — elicitation/create and sampling/createMessage — answered by the
 * host's hooks, on McpClient and through the runtime (told the tenant and the actor whose call the
 * question belongs to), against a real streamable-HTTP server on 127.0.0.1.
 */
import { describe, expect, it } from 'vitest';
import type { RuntimeRequestContext, ServerRequestContext } from '../../src/server/server-requests.js';
import { McpClient } from '../../src/client/mcp-client.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { closedAfterEach } from '../support/closing.js';
import { startHttpMcpServer, type HttpMcpServer } from '../support/http-mcp-server.js';

const closing = closedAfterEach();

const server = async (): Promise<HttpMcpServer> => closing(await startHttpMcpServer(), (started) => started.close());

const text = (result: { content: readonly unknown[] } | undefined): string =>
  String((result?.content[0] as { text?: unknown } | undefined)?.text);

describe('McpClient answers servers', () => {
  it('answers elicitation with the schema defaults filled in (SEP-1034) and declares the capability', async () => {
    const http = await server();
    const asked: ServerRequestContext[] = [];
    const mcp = new McpClient(
      { name: 'remote', url: http.url },
      {
        onElicit: (request, context) => {
          asked.push(context);
          expect(request.message).toBe('Your name?');
          return { action: 'accept', content: { name: 'Ada' } };
        },
      },
    );
    closing(mcp, (client) => client.dispose());
    const answer = JSON.parse(text(await mcp.callTool('ask'))) as { action: string; content: Record<string, unknown> };
    expect(answer).toEqual({ action: 'accept', content: { name: 'Ada', colour: 'blue' } });
    expect(asked[0]?.server).toBe('remote');
    expect(asked[0]?.related).toBeUndefined(); // no runtime call context around a bare client
  });

  it('declares no elicitation or sampling when no handler is given, so the server cannot ask', async () => {
    const http = await server();
    const mcp = new McpClient({ name: 'remote', url: http.url });
    closing(mcp, (client) => client.dispose());
    for (const tool of ['ask', 'sample']) {
      const outcome = await mcp.callTool(tool).then(
        (result) => ({ isError: result.isError === true, text: text(result) }),
        (error: unknown) => ({ isError: true, text: String(error) }),
      );
      expect(outcome.isError).toBe(true);
      expect(outcome.text).toMatch(/does not support|not supported|Method not found/i);
    }
  });
});

describe('the runtime answers servers for its actors', () => {
  it('tells onElicit and onSample the tenant and the actor of the call in flight', async () => {
    const http = await server();
    const elicited: RuntimeRequestContext[] = [];
    const sampled: RuntimeRequestContext[] = [];
    const runtime = await createRuntime({
      config: {
        servers: { remote: { url: http.url } },
        skills: { talk: { mcp_servers: ['remote'] } },
        actors: { helper: { skills: ['talk'] } },
      },
      approve: () => true,
      onElicit: (_request, context) => {
        elicited.push(context);
        return { action: 'accept', content: { name: `user of ${context.tenant}` } };
      },
      onSample: (request, context) => {
        sampled.push(context);
        expect(request.maxTokens).toBe(10);
        return { role: 'assistant', model: 'test-model', content: { type: 'text', text: `hi from ${context.actor ?? 'nobody'}` } };
      },
    });
    closing(runtime, (r) => r.shutdown());
    const helper = await runtime.activate('helper', { tenant: 'acme' });
    const asked = await helper.call('remote/ask', {});
    expect(JSON.parse(text(asked.result))).toEqual({ action: 'accept', content: { name: 'user of acme', colour: 'blue' } });
    const sample = await helper.call('remote/sample', {});
    expect(JSON.parse(text(sample.result))).toMatchObject({ model: 'test-model', content: { text: 'hi from helper' } });
    expect(elicited.map(({ server, tenant, actor }) => ({ server, tenant, actor }))).toEqual([
      { server: 'remote', tenant: 'acme', actor: 'helper' },
    ]);
    expect(sampled.map(({ tenant, actor }) => ({ tenant, actor }))).toEqual([{ tenant: 'acme', actor: 'helper' }]);
  });
});
