/**
 * The transport swap of ADR-004-F for real: the roster domain server (`src/testing/
 * domain-server-fixture.mjs`, run from `dist/`) spawned as a process and spoken to over stdio.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpToolAdapter } from '../../src/adapter/mcp-tool-adapter.js';
import { McpClient } from '../../src/client/mcp-client.js';
import { categoryCapabilities, isToolCategory, toolCategory } from '../../src/domain/tool-category.js';
import { inferCapabilities } from '../../src/registry/capabilities.js';
import { ToolRegistry } from '../../src/registry/tool-registry.js';
import { expectAllGone } from '../support/processes.js';
import { stringContaining } from '../support/matchers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = fileURLToPath(new URL('../../dist/testing/domain-server-fixture.mjs', import.meta.url));

beforeAll(() => {
  // `npm test` builds first; under a plain `npx vitest run` build once here (what `npm run build` runs).
  if (!existsSync(fixture)) execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  if (!existsSync(fixture)) throw new Error(`the build did not produce ${fixture}`);
}, 120_000);

const clients: McpClient[] = [];
const adapters: McpToolAdapter[] = [];

/** One roster process: one tenant (MCP_ACTORS_TENANT), and the scopes it is given. */
function roster(tenant = 't1', extra: { trusted?: boolean; scopes?: string } = {}): McpClient {
  const { scopes, ...rest } = extra;
  const env = { MCP_ACTORS_TENANT: tenant, ...(scopes === undefined ? {} : { MCP_ACTORS_SCOPES: scopes }) };
  const client = new McpClient({ name: 'roster', command: process.execPath, args: [fixture], env, ...rest });
  clients.push(client);
  return client;
}

afterEach(async () => {
  const pids = clients.map((client) => client.status().pid).filter((pid): pid is number => pid !== undefined);
  await Promise.all(adapters.splice(0).map((adapter) => adapter.dispose()));
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
  await expectAllGone(pids, pids);
});

function text(result: CallToolResult): string {
  return (result.content[0] as { text: string }).text;
}

const week = { date_from: '2026-05-01', date_to: '2026-05-07' };

describe('a domain server served over stdio', () => {
  it('lists its tools with the category in the annotations and in _meta', async () => {
    const tools = await roster().listTools();
    const summary = Object.fromEntries(tools.map((tool) => [tool.name, { annotations: tool.annotations, meta: tool._meta }]));
    expect(summary).toEqual({
      roster_list_shifts: { annotations: { readOnlyHint: true }, meta: { category: 'read', domain: 'roster' } },
      roster_propose_assignment: {
        annotations: { readOnlyHint: false, destructiveHint: false },
        meta: { category: 'propose', domain: 'roster' },
      },
      roster_delete_shift: { annotations: { readOnlyHint: false }, meta: { category: 'execute', domain: 'roster' } },
      roster_purge: { annotations: { readOnlyHint: false, destructiveHint: true }, meta: { category: 'restricted', domain: 'roster' } },
    });
    for (const tool of tools) expect(tool).toMatchObject({ inputSchema: { type: 'object' }, outputSchema: { type: 'object' } });
  });

  it("calls each tool for the process's tenant, one process and one state a tenant", async () => {
    const client = roster('t1', { scopes: 'tool:roster_purge' });
    const list = await client.callTool('roster_list_shifts', week, { meta: { tenant: 't1' } });
    expect(list.structuredContent).toEqual({
      shifts: [
        { id: 's1', date: '2026-05-01', site_id: 'north' },
        { id: 's2', date: '2026-05-02', site_id: 'south' },
      ],
      tenant: 't1',
    });
    expect(JSON.parse(text(list))).toEqual(list.structuredContent);

    const proposal = await client.callTool('roster_propose_assignment', { shift_id: 's1', worker_id: 'w9' }, { meta: { org_id: 't1' } });
    expect(proposal.structuredContent).toMatchObject({ shift_id: 's1', worker_id: 'w9', status: 'proposed', tenant: 't1' });

    const deleted = await client.callTool('roster_delete_shift', { shift_id: 's1' });
    expect(deleted.structuredContent).toEqual({ deleted: 's1', tenant: 't1' });
    const afterDelete = await client.callTool('roster_list_shifts', week);
    expect((afterDelete.structuredContent as { shifts: unknown[] }).shifts).toHaveLength(1);
    const otherTenant = await roster('t2').callTool('roster_list_shifts', week);
    expect(otherTenant.structuredContent).toMatchObject({ tenant: 't2', shifts: [{ id: 's1' }, { id: 's2' }] });

    const purged = await client.callTool('roster_purge', { confirm: true });
    expect(purged.structuredContent).toEqual({ purged: 2, tenant: 't1' });
  });

  it('answers a thrown error and bad arguments with isError and the error code in _meta', async () => {
    const client = roster('t1', { scopes: 'tool:roster_purge' });
    const missing = await client.callTool('roster_delete_shift', { shift_id: 'nope' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain('no shift "nope" for tenant "t1"');
    expect(missing._meta).toEqual({ errorCode: 'SERVER_ERROR' });
    const invalid = await client.callTool('roster_purge', { confirm: 'yes' });
    expect(invalid._meta).toMatchObject({ errorCode: 'VALIDATION', violations: [{ path: '/confirm' }] });
  });

  it('refuses a tenant argument, a _meta tenant of another tenant and a restricted tool without its scope, and the tool never runs', async () => {
    const client = roster('t1');
    const refused = await client.callTool('roster_list_shifts', { ...week, org_id: 't2' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^tenant argument denied: "org_id"/);
    const mismatch = await client.callTool('roster_delete_shift', { shift_id: 's1' }, { meta: { tenant: 't2' } });
    expect(mismatch._meta).toEqual({ errorCode: 'TENANT_MISMATCH', rule: 'tenant-mismatch' });
    const unscoped = await client.callTool('roster_purge', { confirm: true });
    expect(unscoped._meta).toEqual({ errorCode: 'PERMISSION_DENIED', rule: 'restricted-needs-scope' });
    expect(text(unscoped)).toContain('needs the scope "tool:roster_purge"');
    const list = await client.callTool('roster_list_shifts', week);
    expect((list.structuredContent as { shifts: unknown[] }).shifts).toHaveLength(2); // nothing was deleted or purged
  });

  it('refuses to start without a tenant: the process exits before the handshake', async () => {
    const client = new McpClient({
      name: 'roster',
      command: process.execPath,
      args: [fixture],
      env: { MCP_ACTORS_TENANT: '' },
      restart: 'temporary',
    });
    clients.push(client);
    await expect(client.listTools()).rejects.toMatchObject({ message: stringContaining('MCP_ACTORS_TENANT') });
  });

  it('gives the adapter the same capabilities as in-process registration (a trusted server)', async () => {
    const adapter = new McpToolAdapter(roster('t3', { trusted: true }));
    adapters.push(adapter);
    await adapter.connect();
    const registry = new ToolRegistry();
    const descriptors = await adapter.registerTools(registry);
    expect(descriptors).toHaveLength(4);
    for (const descriptor of descriptors) {
      const category = (await adapter.client.listTools()).find((tool) => tool.name === descriptor.toolName)?._meta?.category;
      if (!isToolCategory(category)) throw new Error(`no category for ${descriptor.toolName}`);
      const inProcess = inferCapabilities({
        toolName: descriptor.toolName,
        overrides: [{ at: 'category', values: categoryCapabilities(category) }],
      });
      expect({ tool: descriptor.toolName, capabilities: descriptor.capabilities }).toEqual({
        tool: descriptor.toolName,
        capabilities: inProcess.capability,
      });
      const expected = category === 'read' ? 'read' : 'execute';
      expect(toolCategory({ capabilities: descriptor.capabilities }).category).toBe(expected);
    }
    const result = await adapter.invoke('roster_list_shifts', week, { meta: { tenant: 't3' } });
    expect(result).toMatchObject({ success: true, data: { tenant: 't3' } });
  });

  it('keeps the kind of a failure through McpToolAdapter: the server names it in _meta.errorCode', async () => {
    const adapter = new McpToolAdapter(roster('t1'));
    adapters.push(adapter);
    await adapter.connect();
    const mismatch = await adapter.invoke('roster_list_shifts', week, { meta: { tenant: 't2' } });
    expect(mismatch.errorCode).toBe('TENANT_MISMATCH');
    expect(mismatch.error).toContain('this session serves tenant "t1"');
    const unscoped = await adapter.invoke('roster_purge', { confirm: true });
    expect(unscoped.errorCode).toBe('PERMISSION_DENIED');
    const missing = await adapter.invoke('roster_delete_shift', { shift_id: 'nope' }, { meta: { tenant: 't1' } });
    expect(missing.errorCode).toBe('SERVER_ERROR');
    expect(missing.error).toContain('no shift "nope"');
  });
});
