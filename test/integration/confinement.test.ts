/**
 * OS confinement through bubblewrap: what a confined server can and cannot do, tried by a server
 * that attempts it (test/support/confine-probe-server.mjs). Needs bwrap: without it this file
 * fails loudly (`.ci/run` installs it), since a skipped confinement test would hide a regression.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findBwrap, resetConfinementProbes } from '../../src/process/confinement/probe.js';
import { confinementStatus } from '../../src/process/confinement/confinement-status.js';
import { McpClient } from '../../src/client/mcp-client.js';
import type { ConfineSetting } from '../../src/config/confine-setting.js';
import { isMcpActorsError } from '../../src/errors/index.js';
import { stringMatching } from '../support/matchers.js';

const PROBE = fileURLToPath(new URL('../support/confine-probe-server.mjs', import.meta.url));

function requireBwrap(): void {
  if (findBwrap(process.env.PATH) === undefined) {
    throw new Error('bubblewrap (bwrap) is not installed: these tests need it. Install it: apt-get install -y bubblewrap');
  }
}

let work: string;
let root: string;
let home: string;
let outside: string;
const clients: McpClient[] = [];

beforeAll(() => {
  requireBwrap();
  work = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-actors-confine-')));
  root = join(work, 'root');
  home = join(work, 'home');
  outside = join(work, 'outside');
  for (const dir of [root, home, outside, join(home, '.ssh'), join(home, '.aws')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), '-----BEGIN FAKE PRIVATE KEY-----\n');
  writeFileSync(join(home, '.aws', 'credentials'), '[default]\naws_secret_access_key = fake\n');
  writeFileSync(join(home, 'notes.txt'), 'readable');
  writeFileSync(join(outside, 'existing.txt'), 'before');
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

function probeClient(confine: ConfineSetting | undefined, env: Record<string, string> = {}): McpClient {
  const client = new McpClient({
    name: 'probe',
    command: process.execPath,
    args: [PROBE],
    env: { HOME: home, ...env },
    ...(confine === undefined ? {} : { confine }),
    startTimeoutMs: 20_000,
  });
  clients.push(client);
  return client;
}

async function say(client: McpClient, tool: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool(tool, args, { timeoutMs: 15_000 });
  const first = result.content[0];
  return first?.type === 'text' ? first.text : JSON.stringify(result);
}

function listen(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.end());
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : 0 });
    });
  });
}

describe('a confined server', () => {
  it('writes inside its root and its own temp dir, and nowhere else', async () => {
    const client = probeClient({ root });
    expect(confinementStatus(client.config)).toEqual({ confined: true, state: 'confined' });
    expect(await say(client, 'env', { name: 'MCP_ACTORS_CONFINED' })).toBe('ok 1');
    expect(await say(client, 'write', { path: join(root, 'inside.txt'), content: 'in' })).toBe('ok written');
    expect(readFileSync(join(root, 'inside.txt'), 'utf8')).toBe('in');
    const ownTmp = (await say(client, 'env', { name: 'TMPDIR' })).slice(3);
    expect(await say(client, 'write', { path: join(ownTmp, 'scratch'), content: 'x' })).toBe('ok written');

    expect(await say(client, 'write', { path: join(outside, 'existing.txt'), content: 'after' })).toMatch(/^error (EROFS|ENOENT|EACCES)/);
    expect(await say(client, 'write', { path: join(outside, 'new.txt'), content: 'x' })).toMatch(/^error (EROFS|ENOENT|EACCES)/);
    expect(await say(client, 'write', { path: join(home, 'notes.txt'), content: 'x' })).toMatch(/^error (EROFS|EACCES)/);
    expect(readFileSync(join(outside, 'existing.txt'), 'utf8')).toBe('before');
    expect(readFileSync(join(home, 'notes.txt'), 'utf8')).toBe('readable');
  });

  it('cannot read ~/.ssh/id_rsa or ~/.aws under its HOME, and reads the rest of HOME', async () => {
    const client = probeClient({ root });
    expect(await say(client, 'read', { path: join(home, '.ssh', 'id_rsa') })).toMatch(/^error ENOENT/);
    expect(await say(client, 'read', { path: join(home, '.aws', 'credentials') })).toMatch(/^error ENOENT/);
    expect(await say(client, 'read', { path: join(home, 'notes.txt') })).toBe('ok readable');
  });

  it('hides what the config denies on top of the defaults', async () => {
    const client = probeClient({ root, deny: [join(home, 'notes.txt')] });
    // A denied file is /dev/null bound over it (on a nodev mount: EACCES).
    expect(await say(client, 'read', { path: join(home, 'notes.txt') })).toMatch(/^error EACCES$|^ok $/);
  });

  it('without confinement, the same server reads the fake key (the test can fail)', async () => {
    const client = probeClient(false);
    expect(confinementStatus(client.config)).toEqual({ confined: false, state: 'opted-out' });
    expect(await say(client, 'read', { path: join(home, '.ssh', 'id_rsa') })).toMatch(/^ok -----BEGIN FAKE/);
  });
});

describe('the network of a confined server', () => {
  let open: { server: Server; port: number };
  let other: { server: Server; port: number };
  beforeAll(async () => {
    open = await listen();
    other = await listen();
  });
  afterAll(() => {
    open.server.close();
    other.server.close();
  });

  it('network: none refuses a connection to a listening loopback port', async () => {
    const client = probeClient({ root, network: 'none' });
    expect(await say(client, 'tcp', { host: '127.0.0.1', port: open.port })).toMatch(/^error (ECONNREFUSED|ENETUNREACH)/);
  });

  it('network: all (the default) reaches it', async () => {
    const client = probeClient({ root });
    expect(await say(client, 'tcp', { host: '127.0.0.1', port: open.port })).toBe('ok connected');
  });

  it('an allowlist lets through the port it names and refuses a loopback port it does not', async () => {
    const client = probeClient({ root, network: [`127.0.0.1:${open.port}`] });
    expect(await say(client, 'proxy_connect', { target: `127.0.0.1:${open.port}` })).toMatch(/^HTTP\/1\.1 200/);
    expect(await say(client, 'proxy_connect', { target: `127.0.0.1:${other.port}` })).toMatch(/^HTTP\/1\.1 403/);
    // Around the proxy there is no way out: the sandbox has a loopback of its own.
    expect(await say(client, 'tcp', { host: '127.0.0.1', port: other.port })).toMatch(/^error (ECONNREFUSED|ENETUNREACH)/);
  });
});

describe('asking for confinement where bubblewrap is missing', () => {
  const hostPath = process.env.PATH;
  const withHostPath = (path: string): void => {
    process.env.PATH = path;
    resetConfinementProbes();
  };
  afterEach(() => {
    process.env.PATH = hostPath;
    resetConfinementProbes();
  });

  it('fails to start with CONFINEMENT_UNAVAILABLE, naming what to install', async () => {
    const noBwrap = mkdtempSync(join(tmpdir(), 'mcp-actors-nobwrap-'));
    try {
      // The host's PATH decides (never the server's): one with node on it and no bwrap.
      execFileSync('ln', ['-s', process.execPath, join(noBwrap, 'node')]);
      withHostPath(noBwrap);
      const client = probeClient(true, { PATH: noBwrap });
      expect(confinementStatus(client.config)).toMatchObject({ confined: false, state: 'required-unavailable' });
      const failure = await client.callTool('env', { name: 'HOME' }, { timeoutMs: 10_000 }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(isMcpActorsError(failure)).toBe(true);
      const error = failure as { code: string; message: string; details: Record<string, unknown>; cause?: { code?: string } };
      const confinementError = error.code === 'CONFINEMENT_UNAVAILABLE' ? error : (error.cause as typeof error | undefined);
      expect(confinementError?.code).toBe('CONFINEMENT_UNAVAILABLE');
      expect(confinementError?.message).toMatch(/bubblewrap/);
      expect(confinementError?.message).toMatch(/apt-get install -y bubblewrap/);
    } finally {
      rmSync(noBwrap, { recursive: true, force: true });
    }
  });

  it('a sandboxed server that did not ask runs unconfined, and status says why', () => {
    withHostPath('/nonexistent');
    const client = probeClient({ root, fallback: true });
    expect(confinementStatus(client.config)).toMatchObject({
      confined: false,
      state: 'unavailable',
      reason: stringMatching(/not on the PATH/),
    });
  });
});
