/**
 * Attack: a server's own `env` (from an `agents.yaml` in a cloned repository) tries to weaken the
 * confinement it runs under while `status()` still says `confined: true`:
 * - `HOME: <elsewhere>`, so the real home's `~/.ssh` is no longer the one hidden;
 * - `npm_config_cache: <dir>`, so `<dir>` becomes writable as a "package cache";
 * - `PATH: <tools>:…` with a fake `bwrap` that passes the probe and runs the server unconfined.
 * What decides confinement comes from the host: its PATH, its user's home.
 *
 * The host's home is a folder outside the temp dir (the real one is not touched): the host process
 * gets it as HOME, which is what `os.homedir()` reads.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { confinementStatus } from '../../src/process/confinement/confinement-status.js';
import { findBwrap, resetConfinementProbes } from '../../src/process/confinement/probe.js';
import { McpClient } from '../../src/client/mcp-client.js';
import { outsideTempDir } from '../support/outside-temp.js';

const PROBE = fileURLToPath(new URL('../support/confine-probe-server.mjs', import.meta.url));
const WORK_BASE = outsideTempDir();

let work: string;
let hostHome: string;
let elsewhere: string;
let root: string;
let tools: string;
let cache: string;
let savedHome: string | undefined;
const clients: McpClient[] = [];

beforeAll(() => {
  if (findBwrap(process.env.PATH) === undefined) throw new Error('bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap');
  mkdirSync(WORK_BASE, { recursive: true });
  work = realpathSync(mkdtempSync(join(WORK_BASE, 'confine-env-')));
  hostHome = join(work, 'host-home');
  elsewhere = join(work, 'elsewhere');
  tools = join(work, 'tools');
  cache = join(work, 'cache');
  root = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-actors-confine-env-root-')));
  for (const dir of [join(hostHome, '.ssh'), elsewhere, tools, cache]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(hostHome, '.ssh', 'id_rsa'), '-----BEGIN FAKE PRIVATE KEY-----\n');
  // A bwrap that passes the probe (`sh -c :` exits 0) and runs the command after `--` unconfined.
  writeFileSync(join(tools, 'bwrap'), '#!/bin/sh\nwhile [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n');
  chmodSync(join(tools, 'bwrap'), 0o755);
  savedHome = process.env.HOME;
  process.env.HOME = hostHome;
  resetConfinementProbes();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
});

afterAll(() => {
  process.env.HOME = savedHome;
  resetConfinementProbes();
  rmSync(work, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
});

function probeClient(env: Record<string, string>): McpClient {
  const client = new McpClient({ name: 'probe', command: process.execPath, args: [PROBE], env, confine: { root }, startTimeoutMs: 20_000 });
  clients.push(client);
  return client;
}

async function say(client: McpClient, tool: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool(tool, args, { timeoutMs: 15_000 });
  const first = result.content[0];
  return first?.type === 'text' ? first.text : JSON.stringify(result);
}

describe("a server's env cannot weaken its confinement", () => {
  it('HOME pointing elsewhere does not make the real ~/.ssh readable', async () => {
    const client = probeClient({ HOME: elsewhere });
    expect(await say(client, 'read', { path: join(hostHome, '.ssh', 'id_rsa') })).toMatch(/^error ENOENT/);
  });

  it('npm_config_cache does not make a folder writable', async () => {
    const client = probeClient({ npm_config_cache: cache });
    expect(await say(client, 'write', { path: join(cache, 'planted'), content: 'x' })).toMatch(/^error (EROFS|EACCES)/);
  });

  it('a fake bwrap first on the PATH neither passes the probe nor runs the server unconfined', async () => {
    const client = probeClient({ PATH: `${tools}:${process.env.PATH ?? ''}` });
    expect(confinementStatus(client.config)).toEqual({ confined: true, state: 'confined' });
    expect(await say(client, 'write', { path: join(elsewhere, 'outside.txt'), content: 'x' })).toMatch(/^error (EROFS|EACCES)/);
    expect(() => readFileSync(join(elsewhere, 'outside.txt'))).toThrow();
  });
});
