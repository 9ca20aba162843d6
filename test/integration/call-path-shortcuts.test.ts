/**
 * What the call path's shortcuts (taken for throughput) must keep doing, over real servers:
 * - an actor's call carries whose call it is down to the client itself (no AsyncLocalStorage on
 *   the hot path), and that beats whatever context surrounds the call; `withCallContext` still
 *   works around a bare McpClient;
 * - the actor's own per-call signal is handed to the SDK as it is (no second signal linked to
 *   it), and cancelling the actor's calls still cancels a call in flight on the wire, once — and
 *   nothing for the calls that had settled;
 * - runtime events are still published, redacted, once someone listens.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeRequestContext, ServerRequestContext } from '../../src/server/server-requests.js';
import { withCallContext } from '../../src/server/call-context.js';
import { McpClient } from '../../src/client/mcp-client.js';
import { createRuntime, type Runtime } from '../../src/runtime/create-runtime.js';
import type { RuntimeEvent } from '../../src/runtime/runtime-events.js';
import { fixtureServerPath } from '../../src/testing/fixture.js';
import { closedAfterEach } from '../support/closing.js';
import { startHttpMcpServer } from '../support/http-mcp-server.js';
import { waitUntil } from '../support/wait.js';

const closing = closedAfterEach();
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-actors-shortcuts-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A runtime whose actor `caller` reaches the fixture server (given `env`), its echo marked read-only. */
const callerRuntime = (env: Record<string, string>, options: { callTimeoutMs?: number } = {}): Promise<Runtime> =>
  createRuntime({
    config: {
      servers: { fixture: { command: process.execPath, args: [fixtureServerPath()], env } },
      tools: { 'fixture/echo': { overrides: { read_only: true } } },
      skills: { fx: { mcp_servers: ['fixture'] } },
      actors: { caller: { skills: ['fx'] } },
    },
    ...options,
  });

const text = (result: { content: readonly unknown[] } | undefined): string =>
  String((result?.content[0] as { text?: unknown } | undefined)?.text);

describe('whose call it is', () => {
  it('an actor’s call tells onElicit its own actor and tenant, whatever context surrounds the call', async () => {
    const http = closing(await startHttpMcpServer(), (server) => server.close());
    const elicited: RuntimeRequestContext[] = [];
    const runtime = await createRuntime({
      config: {
        servers: { remote: { url: http.url } },
        skills: { talk: { mcp_servers: ['remote'] } },
        actors: { helper: { skills: ['talk'] } },
      },
      approve: () => true,
      onElicit: (_request, context) => {
        elicited.push(context);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    closing(runtime, (r) => r.shutdown());
    const helper = await runtime.activate('helper', { tenant: 'acme' });
    // Another context around the call (a host's own, or a stale one): the call's own wins.
    const outcome = await withCallContext({ actor: 'intruder', tenant: 'acme' }, () => helper.call('remote/ask', {}));
    expect(outcome.status).toBe('committed');
    expect(elicited.map(({ tenant, actor }) => ({ tenant, actor }))).toEqual([{ tenant: 'acme', actor: 'helper' }]);
  });

  it('withCallContext around a bare McpClient still relates the server’s question to that context', async () => {
    const http = closing(await startHttpMcpServer(), (server) => server.close());
    const asked: ServerRequestContext[] = [];
    const mcp = closing(
      new McpClient(
        { name: 'remote', url: http.url },
        { onElicit: (_request, context) => (asked.push(context), { action: 'accept', content: { name: 'Ada' } }) },
      ),
      (client) => client.dispose(),
    );
    await withCallContext({ actor: 'host-agent', tenant: 'acme' }, () => mcp.callTool('ask'));
    // And an explicit context on the call beats the surrounding one.
    await withCallContext({ actor: 'host-agent', tenant: 'acme' }, () =>
      mcp.callTool('ask', {}, { context: { actor: 'explicit', tenant: 'beta' } }),
    );
    expect(asked.map((context) => context.related)).toEqual([
      { actor: 'host-agent', tenant: 'acme' },
      { actor: 'explicit', tenant: 'beta' },
    ]);
  });
});

describe('a server’s question during calls of two actors', () => {
  it('is related to neither actor', async () => {
    const http = closing(await startHttpMcpServer(), (server) => server.close());
    const asked: ServerRequestContext[] = [];
    const mcp: McpClient = closing(
      new McpClient(
        { name: 'remote', url: http.url },
        {
          onElicit: async (_request, context) => {
            asked.push(context);
            // While the first actor's call waits for this answer, a second actor's call asks too.
            if (asked.length === 1) await mcp.callTool('ask', {}, { context: { actor: 'second', tenant: 'acme' } });
            return { action: 'accept', content: { name: 'Ada' } };
          },
        },
      ),
      (client) => client.dispose(),
    );
    await mcp.callTool('ask', {}, { context: { actor: 'first', tenant: 'acme' } });
    expect(asked.map((context) => context.related)).toEqual([{ actor: 'first', tenant: 'acme' }, undefined]);
  });
});

describe('the actor’s call signal, handed to the SDK as it is', () => {
  it('cancelCalls() cancels a call in flight on the wire once, and nothing for the settled calls', async () => {
    const wirePath = join(dir, 'wire.json');
    const counts = (): Record<string, number> => {
      try {
        return JSON.parse(readFileSync(wirePath, 'utf8')) as Record<string, number>;
      } catch {
        return {};
      }
    };
    const runtime = await callerRuntime({ MCP_ACTORS_WIRE_LOG: wirePath }, { callTimeoutMs: 30_000 });
    try {
      const actor = await runtime.activate('caller', { tenant: 'acme' });
      for (let i = 0; i < 50; i += 1) expect(text((await actor.call('fixture/echo', { message: `m${i}` })).result)).toBe(`m${i}`);
      // No caller signal: only the actor's own per-call signal can cancel it.
      const reading = actor.call('fixture/read_slowly', { ms: 20_000 });
      await new Promise((resolve) => setTimeout(resolve, 200));
      actor.cancelCalls('the host is done');
      expect(await reading).toMatchObject({ status: 'failed', error: { code: 'CANCELLED' } });
    } finally {
      await runtime.shutdown();
    }
    await waitUntil(() => counts()['tools/call'] === 51, 'the fixture to write its counts at exit');
    expect(counts()['notifications/cancelled']).toBe(1);
  }, 60_000);
});

describe('runtime events', () => {
  it('are published, redacted, to a listener that subscribes after calls were made without one', async () => {
    const secret = 'sk-live-0123456789';
    const runtime = closing(await callerRuntime({ API_TOKEN: secret }), (r) => r.shutdown());
    const actor = await runtime.activate('caller', { tenant: 'acme' });
    expect((await actor.call('fixture/echo', { message: 'unheard' })).status).toBe('committed');
    const events: RuntimeEvent[] = [];
    const subscription = runtime.events$.subscribe((event) => events.push(event));
    try {
      await actor.call('fixture/echo', { message: 'heard' });
      await actor.call('fixture/no_such_tool', { note: secret });
    } finally {
      subscription.unsubscribe();
    }
    const calls = events.filter((event) => event.type === 'call.started' || event.type === 'call.ended');
    expect(calls.map((event) => `${event.type} ${'tool' in event ? event.tool : ''}`)).toEqual([
      'call.started fixture/echo',
      'call.ended fixture/echo',
      'call.ended fixture/no_such_tool',
    ]);
    expect(JSON.stringify(events)).not.toContain(secret);
  });
});
