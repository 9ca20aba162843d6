/**
 * `agents auth login|status|logout` driven against a loopback OAuth server made of the SDK's own
 * auth pieces: the printed URL is followed as a browser would, the token file is mode 600, a
 * later client refreshes the expired token from the file, and nothing secret is printed.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LoopbackOAuthProvider } from '../../src/auth/loopback-oauth-provider.js';
import { FileTokenStore } from '../../src/auth/token-store.js';
import type { CliIo } from '../../src/cli/cli-io.js';
import { run } from '../../src/cli/main.js';
import { McpClient } from '../../src/client/mcp-client.js';
import { startOAuthMcpServer, type OAuthMcpServer } from '../support/oauth-mcp-server.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-actors-cli-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: OAuthMcpServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** A CLI io whose "user" opens the printed authorization URL. */
function io(): CliIo & { out: () => string; err: () => string; browsed: Promise<unknown>[] } {
  let out = '';
  let err = '';
  const browsed: Promise<unknown>[] = [];
  return {
    stdout: { write: (text: string) => (out += text) },
    stderr: {
      write: (text: string) => {
        err += text;
        const url = /https?:\/\/\S+\/authorize\S*/.exec(text)?.[0];
        if (url) browsed.push(fetch(url).then((response) => response.text()));
        return true;
      },
    },
    stdin: new PassThrough(),
    cwd: dir,
    env: { CI: '1' },
    exit: () => undefined,
    onSignal: () => () => undefined,
    out: () => out,
    err: () => err,
    browsed,
  };
}

describe('agents auth', () => {
  it('logs in with code + PKCE, keeps tokens in a 600 file, shows status, refreshes on expiry, logs out', async () => {
    const oauth = await startOAuthMcpServer();
    servers.push(oauth);
    const file = join(dir, 'agents.yaml');
    writeFileSync(file, `servers:\n  secure:\n    url: ${oauth.url}\nskills: {}\nactors: {}\n`);
    const tokenFile = join(dir, 'config', 'auth.json');
    const common = ['--file', file, '--token-file', tokenFile];

    const login = io();
    expect(await run(['auth', 'login', 'secure', ...common], login)).toBe(0);
    expect(login.err()).toContain('/authorize?');
    expect(await Promise.all(login.browsed)).toEqual([expect.stringContaining('Authorization complete')]);
    expect(login.out()).toContain('logged in to secure');
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(oauth.counts).toMatchObject({ registrations: 1, authorizations: 1, codeGrants: 1 });

    const status = io();
    expect(await run(['auth', 'status', 'secure', '--json', ...common], status)).toBe(0);
    expect(JSON.parse(status.out())).toMatchObject({ ok: true, server: 'secure', loggedIn: true, refreshable: true });

    // A later run reads the file; the token has expired, so it is refreshed and written back.
    oauth.expireTokens();
    const before = readFileSync(tokenFile, 'utf8');
    const provider = await LoopbackOAuthProvider.create({ key: 'secure', store: new FileTokenStore(tokenFile) });
    const client = new McpClient({ name: 'secure', url: oauth.url }, { auth: provider });
    const result = await client.callTool('echo', { message: 'later' });
    await client.dispose();
    expect(JSON.stringify(result.content)).toContain('echo: later');
    expect(oauth.counts).toMatchObject({ authorizations: 1, refreshGrants: 1 });
    expect(readFileSync(tokenFile, 'utf8')).not.toBe(before);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);

    const logout = io();
    expect(await run(['auth', 'logout', 'secure', ...common], logout)).toBe(0);
    const after = io();
    expect(await run(['auth', 'status', 'secure', ...common], after)).toBe(1);
    expect(after.out()).toContain('not logged in');

    const printed = [login, status, logout, after].map((each) => each.out() + each.err()).join('\n');
    for (const token of oauth.issuedTokens) expect(printed).not.toContain(token);
  });

  it('refuses a server that is not a url server, with a usage error', async () => {
    const file = join(dir, 'stdio.yaml');
    writeFileSync(file, 'servers:\n  local:\n    command: node\nskills: {}\nactors: {}\n');
    const cli = io();
    expect(await run(['auth', 'login', 'local', '--file', file], cli)).toBe(2);
    expect(cli.err()).toContain('not a url server');
  });
});
