/**
 * OAuth for remote servers, against a loopback MCP server built from the SDK's own auth server
 * pieces (discovery, dynamic registration, authorize with PKCE, token, refresh): the
 * authorization-code flow through `LoopbackOAuthProvider`, refresh on expiry, tokens kept in a file
 * of mode 600, 401 as AUTH_REQUIRED with no restart loop, and no secret in any output.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import { LoopbackOAuthProvider } from '../../src/auth/loopback-oauth-provider.js';
import { FileTokenStore } from '../../src/auth/token-store.js';
import { McpClient } from '../../src/client/mcp-client.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import type { RuntimeEvent } from '../../src/runtime/runtime-events.js';
import { closedAfterEach } from '../support/closing.js';
import { rejection } from '../support/rejection.js';
import { startOAuthMcpServer, type OAuthMcpServer } from '../support/oauth-mcp-server.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-actors-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const closing = closedAfterEach();

async function server(options: Parameters<typeof startOAuthMcpServer>[0] = {}): Promise<OAuthMcpServer> {
  return closing(await startOAuthMcpServer(options), (started) => started.close());
}

/** The user's browser: follows the authorization URL to the provider's loopback redirect. */
const browser = async (url: URL): Promise<void> => {
  const response = await fetch(url);
  expect(response.status).toBe(200);
};

async function provider(options: Partial<Parameters<typeof LoopbackOAuthProvider.create>[0]> = {}): Promise<LoopbackOAuthProvider> {
  return closing(await LoopbackOAuthProvider.create({ key: 'secure', openUrl: browser, ...options }), (created) => created.close());
}

const client = (...args: ConstructorParameters<typeof McpClient>): McpClient =>
  closing(new McpClient(...args), (created) => created.dispose());

const fast = { backoff: { initialMs: 20, maxMs: 100, jitter: 0 }, startTimeoutMs: 10_000, callTimeoutMs: 10_000 } as const;
const text = (result: { content: unknown[] }): string => String((result.content[0] as { text?: unknown }).text);

describe('OAuth authorization code with PKCE', () => {
  it('discovers, registers, authorizes through the loopback redirect and calls', async () => {
    const oauth = await server();
    const auth = await provider();
    const mcp = client({ name: 'secure', url: oauth.url, ...fast }, { auth });
    expect(text(await mcp.callTool('echo', { message: 'hi' }))).toBe('echo: hi');
    expect(oauth.counts).toMatchObject({ registrations: 1, authorizations: 1, codeGrants: 1 });
    expect(mcp.status().restarts).toBe(0);
  });

  it('refreshes an expired token by itself, without a new authorization', async () => {
    const oauth = await server();
    const auth = await provider();
    const mcp = client({ name: 'secure', url: oauth.url, ...fast }, { auth });
    expect(text(await mcp.callTool('echo', { message: 'one' }))).toBe('echo: one');
    oauth.expireTokens();
    expect(text(await mcp.callTool('echo', { message: 'two' }))).toBe('echo: two');
    expect(oauth.counts).toMatchObject({ authorizations: 1, codeGrants: 1, refreshGrants: 1 });
  });

  it('keeps tokens in a file only the user can read, and a new provider reuses them', async () => {
    const oauth = await server();
    const file = join(dir, 'config', 'mcp-actors', 'auth.json');
    const first = await provider({ store: new FileTokenStore(file) });
    const mcp = client({ name: 'secure', url: oauth.url, ...fast }, { auth: first });
    await mcp.callTool('echo', { message: 'one' });
    await mcp.dispose();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'config', 'mcp-actors')).mode & 0o777).toBe(0o700);
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')) as object)).toEqual(['secure']);
    const second = await provider({ store: new FileTokenStore(file) });
    expect(second.port).toBe(first.port); // the registered redirect stays valid
    const again = client({ name: 'secure', url: oauth.url, ...fast }, { auth: second });
    expect(text(await again.callTool('echo', { message: 'two' }))).toBe('echo: two');
    expect(oauth.counts).toMatchObject({ registrations: 1, authorizations: 1 });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe('401 and 403', () => {
  it('is AUTH_REQUIRED at once, with no restart loop, when no provider is given', async () => {
    const oauth = await server();
    const mcp = client({ name: 'secure', url: oauth.url, maxRestarts: 5, ...fast });
    expect((await rejection(mcp.start())).code).toBe('SERVER_IN_ERROR');
    expect(mcp.state).toBe('ERROR');
    expect(mcp.status().restarts).toBe(0);
    expect(mcp.status().lastError?.code).toBe('AUTH_REQUIRED');
    expect(mcp.status().lastError?.message).toContain('agents auth login secure');
    expect((await rejection(mcp.callTool('echo', {}))).code).toBe('SERVER_IN_ERROR');
  });

  it('is AUTH_REQUIRED when the authorization cannot be finished (a provider with nobody at the browser)', async () => {
    const oauth = await server();
    const auth = await provider({ openUrl: () => undefined, authorizationTimeoutMs: 300 });
    const mcp = client({ name: 'secure', url: oauth.url, maxRestarts: 5, ...fast }, { auth });
    await mcp.start().catch(() => undefined);
    expect(mcp.state).toBe('ERROR');
    expect(mcp.status().restarts).toBe(0);
    expect(mcp.status().lastError?.code).toBe('AUTH_REQUIRED');
    expect(oauth.counts.authorizations).toBe(0);
  });
});

describe('secrets', () => {
  const SECRET_HEADER = 'Bearer SECRET-HEADER-4f1c9e';
  const SECRET_KEY = 'SECRET-KEY-77d2a0';

  /** Every byte a host can see: JSON as an inspector sends it, and util.inspect as a log shows it (causes included). */
  function everyByte(values: unknown[], inspected: unknown[]): string {
    const asJson = (value: unknown): string =>
      JSON.stringify(value, (_key, v: unknown) =>
        v instanceof Error ? { ...Object.fromEntries(Object.entries(v)), message: v.message, stack: v.stack, cause: v.cause } : v,
      );
    return [
      ...inspected.map(asJson),
      ...values.map((value) => {
        let json: string;
        try {
          json = JSON.stringify(value, (_key, v: unknown) =>
            v instanceof Error ? { ...Object.fromEntries(Object.entries(v)), message: v.message, stack: v.stack, cause: v.cause } : v,
          );
        } catch {
          json = '';
        }
        return `${json}\n${inspect(value, { depth: Infinity, showHidden: false })}`;
      }),
    ].join('\n');
  }

  it('never shows a secret header or an OAuth token in errors, events, status or snapshots', async () => {
    const oauth = await server();
    const auth = await provider();
    const inspected: InspectionEvent[] = [];
    const runtime = await createRuntime({
      config: {
        servers: {
          headered: {
            url: oauth.url,
            headers: { Authorization: SECRET_HEADER, 'X-Api-Key': SECRET_KEY },
            max_restarts: 2,
            backoff: { initial_ms: 20 },
          },
          secure: { url: oauth.url, max_restarts: 2 },
        },
        skills: { remote: { mcp_servers: ['headered', 'secure'] } },
        actors: { helper: { skills: ['remote'] } },
      },
      auth: (info) => (info.name === 'secure' ? auth : undefined),
      inspect: (event) => inspected.push(event),
      approve: () => true,
      callTimeoutMs: 10_000,
    });
    closing(runtime, (r) => r.shutdown());
    const events: RuntimeEvent[] = [];
    runtime.events$.subscribe((event) => events.push(event));
    const outputs: unknown[] = [];
    const helper = await runtime.activate('helper', { tenant: 'acme' });
    outputs.push(helper.activation);
    outputs.push(await helper.call('secure/echo', { message: 'hi' }));
    oauth.expireTokens();
    outputs.push(await helper.call('secure/echo', { message: 'after refresh' }));
    expect(helper.activation?.unavailable.map((entry) => entry.server)).toEqual(['headered']);
    outputs.push(runtime.status(), events);
    // What an inspector is sent: each event and snapshot, as JSON.
    const sent = inspected.map((event) => ({
      type: event.type,
      event: (event as { event?: unknown }).event,
      snapshot: (event as { snapshot?: unknown }).snapshot,
    }));
    const bytes = everyByte(outputs, sent);
    // The test can fail: the server did see the header, and tokens were issued and used.
    expect(oauth.counts.rejectedTokens).toBeGreaterThan(0);
    expect(oauth.issuedTokens.length).toBeGreaterThanOrEqual(4);
    expect(bytes).toContain('AUTH_REQUIRED');
    expect(bytes).toContain('echo: after refresh');
    for (const secret of [SECRET_HEADER, SECRET_KEY, 'SECRET-HEADER', ...oauth.issuedTokens]) expect(bytes).not.toContain(secret);
  });
});
