/** `agents serve`: a domain server module served by the CLI, over stdio and over HTTP, as real processes. */
import { spawn, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/mcp-client.js';
import { waitUntil } from '../support/wait.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const agents = fileURLToPath(new URL('../../bin/agents.mjs', import.meta.url));
const roster = fileURLToPath(new URL('../support/roster-module.mjs', import.meta.url));

beforeAll(() => {
  if (!existsSync(fileURLToPath(new URL('../../dist/index.js', import.meta.url))))
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
}, 120_000);

const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
});

describe('agents serve', () => {
  it('serves a module over stdio for the tenant given', async () => {
    const client = new McpClient({ name: 'roster', command: process.execPath, args: [agents, 'serve', roster, '--tenant', 'acme'] });
    clients.push(client);
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['roster_whoami']);
    expect((await client.callTool('roster_whoami', {})).structuredContent).toEqual({ tenant: 'acme' });
  });

  it('serves a module over HTTP in single-tenant mode, says so, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [agents, 'serve', `${roster}#roster`, 'http', '--tenant', 'globex'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitUntil(() => /at (http:\/\/\S+)/.test(stderr), 'the startup line', 30_000);
      expect(stderr).toContain('single-tenant mode: every session is tenant "globex"');
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(/at (http:\/\/\S+)/.exec(stderr)![1]!)));
      expect((await client.callTool({ name: 'roster_whoami', arguments: {} })).structuredContent).toEqual({ tenant: 'globex' });
      await client.close();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('refuses a module export that is not a domain server, and stdio without a tenant', () => {
    const run = (args: string[], env: Record<string, string> = {}) => {
      try {
        execFileSync(process.execPath, [agents, ...args], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { PATH: process.env.PATH ?? '', ...env },
        });
        return { code: 0, stderr: '' };
      } catch (error) {
        const failed = error as { status: number; stderr: string };
        return { code: failed.status, stderr: failed.stderr };
      }
    };
    const notServer = run(['serve', `${roster}#notAServer`, '--tenant', 'acme']);
    expect(notServer.code).toBe(2);
    expect(notServer.stderr).toContain('is not a domain server');
    const noTenant = run(['serve', roster]);
    expect(noTenant.code).toBe(2);
    expect(noTenant.stderr).toContain('--tenant <tenant>, or MCP_ACTORS_TENANT');
  });
});
