/**
 * A hostile remote server echoes the OAuth access token it was sent back in an `isError` result
 * (as is, upper-cased, base64 and URL-encoded). The token was never written in any configuration:
 * only the auth provider knows it. It must appear in no outcome, status, event, message of the
 * built-in inspector (the view that shows tool results), nor in what `agents call` prints (text
 * and --json).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { LoopbackOAuthProvider } from '../../src/auth/loopback-oauth-provider.js';
import { FileTokenStore } from '../../src/auth/token-store.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import type { RuntimeEvent } from '../../src/runtime/runtime-events.js';
import { runAgents } from '../support/agents-cli.js';
import { closedAfterEach } from '../support/closing.js';
import { connectViewer, type Viewer } from '../support/inspector-viewer.js';
import { startTokenEchoServer } from '../support/token-echo-server.js';
import { waitUntil } from '../support/wait.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-actors-token-echo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const closing = closedAfterEach();

/** The user's browser: follows the authorization URL to the provider's loopback redirect. */
const browser = async (url: URL): Promise<void> => {
  const response = await fetch(url);
  expect(response.status).toBe(200);
};

/** JSON (errors with message, stack and cause) and util.inspect: every byte a host could log or send. */
function everyByte(values: unknown[]): string {
  // JSON.stringify as it behaves: undefined for undefined (or a function, a symbol), whatever its type says.
  const stringify = (value: unknown, replacer: (key: string, v: unknown) => unknown): string | undefined => JSON.stringify(value, replacer);
  const asJson = (value: unknown): string =>
    stringify(value, (_key, v: unknown) =>
      v instanceof Error ? { ...Object.fromEntries(Object.entries(v)), message: v.message, stack: v.stack, cause: v.cause } : v,
    ) ?? '';
  return values.map((value) => `${asJson(value)}\n${inspect(value, { depth: Infinity })}`).join('\n');
}

/** The token as the server echoed it: as is, upper case, inside base64 (the part that is the token's alone), URL-encoded. */
function tokenForms(token: string): string[] {
  const base64 = Buffer.from(`Bearer ${token}`).toString('base64');
  // "Bearer " is 7 bytes: characters from 11 on (bit 66 > 56) carry the token's bits only.
  return [token, token.toUpperCase(), encodeURIComponent(token), base64.slice(11, base64.length - 4)];
}

const agentsYaml = (url: string): string =>
  stringify({
    servers: { secure: { url, max_restarts: 1 } },
    skills: { remote: { mcp_servers: ['secure'] } },
    actors: { helper: { skills: ['remote'] } },
  });

describe('a token a provider obtained, echoed back by the server', () => {
  it('appears in no outcome, status, event, inspection event or agents call output', { timeout: 60_000 }, async () => {
    const server = closing(await startTokenEchoServer(), (started) => started.close());
    const tokenFile = join(dir, 'auth.json');
    const auth = closing(
      await LoopbackOAuthProvider.create({ key: 'secure', store: new FileTokenStore(tokenFile), openUrl: browser }),
      (created) => created.close(),
    );
    const runtime = closing(
      await createRuntime({
        config: {
          servers: { secure: { url: server.url, max_restarts: 1 } },
          skills: { remote: { mcp_servers: ['secure'] } },
          actors: { helper: { skills: ['remote'] } },
        },
        auth: (info) => (info.name === 'secure' ? auth : undefined),
        inspect: { port: 0, print: false },
        approve: () => true,
        callTimeoutMs: 10_000,
      }),
      (r) => r.shutdown(),
    );
    const viewer: Viewer = closing(
      await connectViewer(runtime.inspector!.wsUrl, { origin: `http://127.0.0.1:${runtime.inspector!.port}` }),
      (v) => v.close(),
    );
    const events: RuntimeEvent[] = [];
    runtime.events$.subscribe((event) => events.push(event));
    const helper = await runtime.activate('helper', { tenant: 'acme' });
    const outcome = await helper.call('secure/whoami', {});
    // The call's last snapshot (done, with its output) is the last message about it.
    await waitUntil(() => {
      const call = viewer.messages.find((m) => m.type === '@xstate.actor' && m.name === 'call:helper:acme#1 secure/whoami');
      return (
        call !== undefined &&
        viewer.messages.some((m) => m.type === '@xstate.snapshot' && m.sessionId === call.sessionId && m.snapshot?.status === 'done')
      );
    }, 'the call done in the viewer');
    const bytes = [everyByte([outcome, runtime.status(), events]), ...viewer.raw].join('\n');

    // The attack happened: the server was sent a token and quoted it back in a failed result.
    expect(outcome.status).toBe('failed');
    expect(server.echoed.length).toBeGreaterThan(0);
    expect(server.issuedTokens).toContain(server.echoed[0]);
    expect(bytes).toContain('rejected Authorization: Bearer [redacted]');
    expect(viewer.raw.join('\n')).toContain('rejected Authorization: Bearer [redacted]');
    for (const token of server.issuedTokens) for (const form of tokenForms(token)) expect(bytes).not.toContain(form);

    // The same server through the CLI, with the tokens the provider saved in the token file.
    await runtime.shutdown();
    const project = mkdtempSync(join(dir, 'project-'));
    writeFileSync(join(project, 'agents.yaml'), agentsYaml(server.url));
    const env = { MCP_ACTORS_AUTH_FILE: tokenFile };
    const text = await runAgents(['call', 'helper', 'secure/whoami', '--tenant', 'acme', '--yes'], {
      cwd: project,
      timeoutMs: 30_000,
      env,
    });
    const json = await runAgents(['call', 'helper', 'secure/whoami', '--tenant', 'acme', '--yes', '--json'], {
      cwd: project,
      timeoutMs: 30_000,
      env,
    });
    const printed = [text.stdout, text.stderr, json.stdout, json.stderr].join('\n');
    expect(text.code).toBe(1);
    expect(server.echoed.length).toBeGreaterThanOrEqual(3);
    expect(text.stdout).toContain('rejected Authorization: Bearer [redacted]');
    expect(json.stdout).toContain('rejected Authorization: Bearer [redacted]');
    for (const token of server.issuedTokens) for (const form of tokenForms(token)) expect(printed).not.toContain(form);
  });
});
