/**
 * ADR-004-F's round trip across a process boundary: the roster domain server (src/testing/
 * domain-server-fixture.mjs, run from dist/) spawned with `--http` and served by serveOverHttp,
 * each session's tenant from its bearer token; spoken to by the SDK's client and by the runtime's
 * own streamable-http McpClient.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/mcp-client.js';
import type { ServedAuditRecord } from '../../src/serve/served-access.js';
import { waitUntil } from '../support/wait.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = fileURLToPath(new URL('../../dist/testing/domain-server-fixture.mjs', import.meta.url));
const TOKENS = {
  'token-acme': { tenant: 'acme', scopes: [] },
  'token-acme-admin': { tenant: 'acme', scopes: ['tool:roster_purge'] },
  'token-globex': { tenant: 'globex', scopes: [] },
};
const week = { date_from: '2026-05-01', date_to: '2026-05-07' };

let server: ChildProcess;
let url: string;
const audit: ServedAuditRecord[] = [];

beforeAll(async () => {
  if (!existsSync(fixture)) execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  server = spawn(process.execPath, [fixture, '--http'], {
    env: { ...process.env, ROSTER_TOKENS: JSON.stringify(TOKENS) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  server.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  server.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    const lines = stdout.split('\n');
    stdout = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') audit.push(JSON.parse(line) as ServedAuditRecord);
  });
  await waitUntil(() => /at (http:\/\/\S+)/.test(stderr), 'the roster to print its URL', 30_000);
  url = /at (http:\/\/\S+)/.exec(stderr)![1]!;
}, 120_000);

afterAll(async () => {
  if (server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  await exited;
});

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((item) => item.close()));
});

async function sdkClient(token: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(transport);
  opened.push(client);
  return { client, transport };
}

async function call(client: Client, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) })) as CallToolResult;
}

describe('a domain server served over streamable HTTP, one tenant a session', () => {
  it('gives two tenants with two tokens separate sessions, each seeing only its own data', async () => {
    const acme = await sdkClient('token-acme');
    const globex = await sdkClient('token-globex');
    expect(acme.transport.sessionId).toBeDefined();
    expect(acme.transport.sessionId).not.toBe(globex.transport.sessionId);

    expect((await call(acme.client, 'roster_delete_shift', { shift_id: 's1' })).structuredContent).toEqual({
      deleted: 's1',
      tenant: 'acme',
    });
    const acmeWeek = (await call(acme.client, 'roster_list_shifts', week)).structuredContent as {
      tenant: string;
      shifts: { id: string }[];
    };
    const globexWeek = (await call(globex.client, 'roster_list_shifts', week)).structuredContent as {
      tenant: string;
      shifts: { id: string }[];
    };
    expect({ tenant: acmeWeek.tenant, shifts: acmeWeek.shifts.map((s) => s.id) }).toEqual({ tenant: 'acme', shifts: ['s2'] });
    expect({ tenant: globexWeek.tenant, shifts: globexWeek.shifts.map((s) => s.id) }).toEqual({ tenant: 'globex', shifts: ['s1', 's2'] });
  });

  it('refuses a token for acme with _meta.tenant globex (TENANT_MISMATCH), and the tool never runs', async () => {
    const { client } = await sdkClient('token-acme');
    const before = ((await call(client, 'roster_list_shifts', week)).structuredContent as { shifts: unknown[] }).shifts.length;
    const answer = await call(client, 'roster_delete_shift', { shift_id: 's2' }, { tenant: 'globex' });
    expect(answer.isError).toBe(true);
    expect(answer._meta).toEqual({ errorCode: 'TENANT_MISMATCH', rule: 'tenant-mismatch' });
    expect((answer.content[0] as { text: string }).text).toContain('this session serves tenant "acme"');
    const after = ((await call(client, 'roster_list_shifts', week)).structuredContent as { shifts: unknown[] }).shifts.length;
    expect(after).toBe(before);
  });

  it('refuses a restricted tool without its scope and audits the refusal; the scoped token may', async () => {
    const { client, transport } = await sdkClient('token-globex');
    const refused = await call(client, 'roster_purge', { confirm: true });
    expect(refused._meta).toEqual({ errorCode: 'PERMISSION_DENIED', rule: 'restricted-needs-scope' });
    await waitUntil(() => audit.some((r) => r.sessionId === transport.sessionId && r.tool === 'roster_purge'), 'the audit record');
    const record = audit.find((r) => r.sessionId === transport.sessionId && r.tool === 'roster_purge')!;
    expect(record).toMatchObject({
      transport: 'http',
      tenant: 'globex',
      category: 'restricted',
      outcome: 'denied',
      errorCode: 'PERMISSION_DENIED',
      rule: 'restricted-needs-scope',
    });
    expect(record.durationMs).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(audit)).not.toContain('token-');

    const admin = await sdkClient('token-acme-admin');
    expect((await call(admin.client, 'roster_purge', { confirm: true })).structuredContent).toMatchObject({ tenant: 'acme' });
    await waitUntil(() => audit.some((r) => r.sessionId === admin.transport.sessionId && r.outcome === 'succeeded'), 'the audit record');
  });

  it("answers 401 without a valid token, and 404 when a session is used with another tenant's token", async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const none = await fetch(url, { method: 'POST', headers, body: JSON.stringify(initialize) });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(await none.text()).not.toContain('token');
    const wrong = await fetch(url, {
      method: 'POST',
      headers: { ...headers, Authorization: 'Bearer nope' },
      body: JSON.stringify(initialize),
    });
    expect(wrong.status).toBe(401);

    const { transport } = await sdkClient('token-acme');
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    const hijack = await fetch(url, {
      method: 'POST',
      headers: {
        ...headers,
        Authorization: 'Bearer token-globex',
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify(list),
    });
    // Another tenant's (or principal's) session is answered like one that does not exist.
    expect(hijack.status).toBe(404);
    expect(await hijack.text()).toContain('Session not found');
  });

  it("is reached by the runtime's own streamable-http client end to end", async () => {
    const client = new McpClient({ name: 'roster', url, headers: { Authorization: 'Bearer token-globex' } });
    opened.push({ close: () => client.dispose() });
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'roster_delete_shift',
      'roster_list_shifts',
      'roster_propose_assignment',
      'roster_purge',
    ]);
    const proposal = await client.callTool(
      'roster_propose_assignment',
      { shift_id: 's1', worker_id: 'w1' },
      { meta: { tenant: 'globex' } },
    );
    expect(proposal.structuredContent).toMatchObject({ status: 'proposed', tenant: 'globex' });
    const mismatch = await client.callTool('roster_list_shifts', week, { meta: { tenant: 'acme' } });
    expect(mismatch._meta).toMatchObject({ errorCode: 'TENANT_MISMATCH' });
    expect(client.status().state).toBe('RUNNING');
  });
});
