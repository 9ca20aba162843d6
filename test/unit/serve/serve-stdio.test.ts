import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { defineServer, type DomainServer } from '../../../src/domain/define-server.js';
import { defineTool, type ToolContext } from '../../../src/domain/define-tool.js';
import { registerInProcessServer } from '../../../src/domain/in-process-server.js';
import { serveOverStdio, toCallToolResult, type ServeOptions } from '../../../src/serve/serve-stdio.js';
import type { ToolResult } from '../../../src/registry/tool-descriptor.js';
import { ToolRegistry } from '../../../src/registry/tool-registry.js';
import { waitUntil } from '../../support/wait.js';
import { stringContaining } from '../../support/matchers.js';

const SHIFTS = [
  { id: 's1', date: '2026-05-01', site_id: 'north' },
  { id: 's2', date: '2026-05-02', site_id: 'south' },
  { id: 's3', date: '2026-05-09', site_id: 'north' },
];

let waiting: { ctx: ToolContext; aborted: boolean } | undefined;

const roster = defineServer({
  name: 'roster',
  version: '1.0.0',
  tools: [
    defineTool({
      name: 'roster_list_shifts',
      domain: 'roster',
      category: 'read',
      description: 'Lists the shifts between two dates, optionally at one site.',
      input: {
        type: 'object',
        properties: {
          date_from: { type: 'string', format: 'date' },
          date_to: { type: 'string', format: 'date' },
          site_id: { type: 'string' },
        },
        required: ['date_from', 'date_to'],
      },
      output: { type: 'object', properties: { shifts: { type: 'array' }, tenant: { type: 'string' } }, required: ['shifts', 'tenant'] },
      call: ({ date_from, date_to, site_id }: { date_from: string; date_to: string; site_id?: string }, ctx) => ({
        shifts: SHIFTS.filter((s) => s.date >= date_from && s.date <= date_to && (site_id === undefined || s.site_id === site_id)),
        tenant: ctx.tenant,
      }),
    }),
    defineTool({
      name: 'roster_count_shifts',
      domain: 'roster',
      category: 'read',
      description: 'Counts the shifts at a site; "boom" throws and "bad" breaks the output schema.',
      input: { type: 'object', properties: { site_id: { type: 'string' } } },
      output: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
      call: ({ site_id }: { site_id?: string }): Promise<{ count: string } | { count: number }> => {
        if (site_id === 'boom') return Promise.reject(new Error('the roster database is down'));
        if (site_id === 'bad') return Promise.resolve({ count: 'many' });
        return Promise.resolve({ count: SHIFTS.filter((s) => site_id === undefined || s.site_id === site_id).length });
      },
    }),
    defineTool({
      name: 'roster_propose_assignment',
      domain: 'roster',
      category: 'propose',
      description: 'Proposes an assignment.',
      input: { type: 'object', properties: { shift_id: { type: 'string' } }, required: ['shift_id'] },
      call: ({ shift_id }: { shift_id: string }, ctx) => ({ shift_id, org: ctx.org_id, actor: ctx.actor, callId: ctx.callId }),
    }),
    defineTool({
      name: 'roster_delete_shift',
      domain: 'roster',
      category: 'execute',
      description: 'Deletes a shift.',
      input: { type: 'object', properties: {} },
      call: () => undefined,
    }),
    defineTool({
      name: 'roster_purge',
      domain: 'roster',
      category: 'restricted',
      description: 'Purges the roster; waits until it is cancelled.',
      input: { type: 'object', properties: {} },
      call: (_params, ctx) => {
        const entry = { ctx, aborted: false };
        waiting = entry;
        return new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            entry.aborted = true;
            reject(new Error('aborted'));
          });
        });
      },
    }),
  ],
});

const opened: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((item) => item.close()));
  waiting = undefined;
});

async function connected(server: DomainServer = roster, options: Omit<ServeOptions, 'transport'> = {}): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const defaults: ServeOptions = { tenant: 'acme', scopes: ['tool:roster_purge'], announce: false };
  opened.push(await serveOverStdio(server, { ...defaults, ...options, transport: serverTransport }));
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientTransport);
  opened.push(client);
  return client;
}

async function callOverWire(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown> = { tenant: 'acme' },
) {
  return (await client.callTool({ name, arguments: args, _meta: meta })) as CallToolResult;
}

function text(result: CallToolResult): string {
  return (result.content[0] as { text: string }).text;
}

/** How a caller reads a wire answer: the error code travels in `_meta`. */
function fromWire(answer: CallToolResult): Pick<ToolResult, 'success' | 'errorCode' | 'data'> {
  return {
    success: answer.isError !== true,
    errorCode: answer.isError === true ? ((answer._meta?.errorCode as ToolResult['errorCode']) ?? 'SERVER_ERROR') : undefined,
    data: answer.structuredContent,
  };
}

describe('serveOverStdio (over an in-memory transport)', () => {
  it('lists every tool with its schemas, annotations from the category and _meta { category, domain }', async () => {
    const client = await connected();
    const { tools } = await client.listTools();
    expect(client.getServerVersion()).toMatchObject({ name: 'roster', version: '1.0.0' });
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.roster_list_shifts).toMatchObject({
      description: 'Lists the shifts between two dates, optionally at one site.',
      inputSchema: { type: 'object', required: ['date_from', 'date_to'] },
      outputSchema: { type: 'object', required: ['shifts', 'tenant'] },
      annotations: { readOnlyHint: true },
      _meta: { category: 'read', domain: 'roster' },
    });
    expect(byName.roster_propose_assignment).toMatchObject({
      annotations: { readOnlyHint: false, destructiveHint: false },
      _meta: { category: 'propose' },
    });
    expect(byName.roster_propose_assignment!.outputSchema).toBeUndefined();
    expect(byName.roster_delete_shift).toMatchObject({ annotations: { readOnlyHint: false }, _meta: { category: 'execute' } });
    expect(byName.roster_purge).toMatchObject({
      annotations: { readOnlyHint: false, destructiveHint: true },
      _meta: { category: 'restricted' },
    });
  });

  it("runs a call for the process's tenant and answers with text and structured content", async () => {
    const client = await connected();
    const answer = await callOverWire(client, 'roster_list_shifts', { date_from: '2026-05-01', date_to: '2026-05-01' }, {});
    const data = { shifts: [SHIFTS[0]], tenant: 'acme' };
    expect(answer).toEqual({ content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data });
  });

  it('sets the tenant under the tenant key, takes callId from _meta and the actor from the process only, never from _meta', async () => {
    const client = await connected(roster, { tenant: 'globex', tenantKey: 'company_id' });
    const answer = await callOverWire(
      client,
      'roster_propose_assignment',
      { shift_id: 's1' },
      { company_id: 'globex', actor: 'agent-7', callId: 'c1' },
    );
    expect(answer.structuredContent).toEqual({ shift_id: 's1', callId: 'c1' });
    const named = await connected(roster, { tenant: 'globex', tenantKey: 'company_id', actor: 'host-user' });
    const forged = await callOverWire(named, 'roster_propose_assignment', { shift_id: 's1' }, { actor: 'agent-7', callId: 'c2' });
    expect(forged.structuredContent).toEqual({ shift_id: 's1', actor: 'host-user', callId: 'c2' });
  });

  it("refuses a _meta tenant that disagrees with the process's (TENANT_MISMATCH), and the tool never runs", async () => {
    const client = await connected();
    for (const meta of [{ tenant: 'globex' }, { org_id: 'globex' }, { tenant: 'acme', org_id: 'globex' }, { tenant: '' }]) {
      const answer = await callOverWire(client, 'roster_delete_shift', {}, meta);
      expect(answer.isError).toBe(true);
      expect(answer._meta).toEqual({ errorCode: 'TENANT_MISMATCH', rule: 'tenant-mismatch' });
      expect(text(answer)).toContain('but this session serves tenant "acme"');
    }
    expect((await callOverWire(client, 'roster_delete_shift', {}, { org_id: 'acme' })).isError).toBeUndefined();
    expect((await callOverWire(client, 'roster_delete_shift', {}, {})).isError).toBeUndefined();
  });

  it('needs a tenant at start: the option, else MCP_ACTORS_TENANT', async () => {
    const saved = process.env.MCP_ACTORS_TENANT;
    delete process.env.MCP_ACTORS_TENANT;
    try {
      const [, serverTransport] = InMemoryTransport.createLinkedPair();
      await expect(serveOverStdio(roster, { transport: serverTransport, announce: false })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: stringContaining('set MCP_ACTORS_TENANT'),
      });
      process.env.MCP_ACTORS_TENANT = 'initech';
      const client = await connected(roster, { tenant: undefined });
      const answer = await callOverWire(client, 'roster_list_shifts', { date_from: '2026-05-01', date_to: '2026-05-01' }, {});
      expect(answer.structuredContent).toMatchObject({ tenant: 'initech' });
    } finally {
      if (saved === undefined) delete process.env.MCP_ACTORS_TENANT;
      else process.env.MCP_ACTORS_TENANT = saved;
    }
  });

  it('says its tenant in its startup line', async () => {
    const lines: string[] = [];
    const [, serverTransport] = InMemoryTransport.createLinkedPair();
    opened.push(await serveOverStdio(roster, { tenant: 'acme', transport: serverTransport, announce: (line) => lines.push(line) }));
    expect(lines).toEqual(['roster: serving 5 tools over a transport for tenant "acme" (one tenant per process)']);
  });

  it('refuses a tenant-named argument as the in-process handler does', async () => {
    const client = await connected();
    const answer = await callOverWire(client, 'roster_delete_shift', { Tenant_Id: 'evil' }, {});
    expect(answer.isError).toBe(true);
    expect(text(answer)).toMatch(/^tenant argument denied: "Tenant_Id"/);
    expect(answer._meta).toMatchObject({ errorCode: 'TENANT_ARGUMENT', violations: [{ path: '/Tenant_Id' }] });
  });

  it('answers an unknown tool with a protocol error', async () => {
    const client = await connected();
    await expect(callOverWire(client, 'roster_nothing', {})).rejects.toBeInstanceOf(McpError);
  });

  it('aborts the tool ctx.signal when the client cancels the request', async () => {
    const client = await connected();
    const controller = new AbortController();
    const pending = client.callTool({ name: 'roster_purge', arguments: {}, _meta: { tenant: 'acme' } }, undefined, {
      signal: controller.signal,
    });
    await waitUntil(() => waiting !== undefined, 'the tool to be called');
    controller.abort();
    await expect(pending).rejects.toThrow();
    await waitUntil(() => waiting?.aborted === true, 'the tool to see its signal aborted');
    expect(waiting?.ctx.tenant).toBe('acme');
  });

  it('gives the same success, errorCode and data as the in-process handler (differential)', async () => {
    const client = await connected();
    const registry = new ToolRegistry();
    registerInProcessServer(registry, roster, { tenant: 'acme' });

    const date = fc
      .date({ min: new Date('2026-04-25T00:00:00Z'), max: new Date('2026-05-15T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
    const value = fc.oneof(
      date,
      fc.constantFrom('north', 'south', 'bad', 'boom', '2026-13-01', ''),
      fc.string({ maxLength: 6 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
    );
    const key = fc.constantFrom('date_from', 'date_to', 'site_id', 'shift_id', 'note', 'org_id', 'Tenant', 'TENANT_ID');
    const args = fc.dictionary(key, value, { maxKeys: 5 });
    const tool = fc.constantFrom('roster_list_shifts', 'roster_count_shifts', 'roster_delete_shift');

    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(tool, args, async (name, argv) => {
        const local = await registry.handlerOf(`roster/${name}`)(structuredClone(argv), {});
        const wire = fromWire(await callOverWire(client, name, argv));
        seen.add(local.success ? 'success' : local.errorCode!);
        expect(wire).toEqual({ success: local.success, errorCode: local.errorCode, data: local.data });
      }),
      {
        numRuns: 300,
        // One sure example of each outcome besides the generated ones.
        examples: [
          ['roster_list_shifts', { date_from: '2026-05-01', date_to: '2026-05-09', site_id: 'north' }],
          ['roster_count_shifts', { site_id: 'boom' }],
          ['roster_count_shifts', { site_id: 'bad' }],
          ['roster_list_shifts', { date_from: '2026-05-01' }],
        ],
      },
    );
    // The generators reach every outcome the tools can give.
    expect([...seen].sort()).toEqual(['OUTPUT_VALIDATION', 'SERVER_ERROR', 'TENANT_ARGUMENT', 'VALIDATION', 'success']);
  });
});

describe('toCallToolResult', () => {
  it('keeps text and structured content of a success, and moves a failure code into _meta', () => {
    const ok: ToolResult = {
      success: true,
      content: [{ type: 'text', text: '{"a":1}' }],
      data: { a: 1 },
      error: undefined,
      errorCode: undefined,
      durationMs: 1,
    };
    expect(toCallToolResult(ok)).toEqual({ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } });
    const failed: ToolResult = { success: false, content: [], data: undefined, error: 'boom', errorCode: 'SERVER_ERROR', durationMs: 1 };
    expect(toCallToolResult(failed)).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'boom' }],
      _meta: { errorCode: 'SERVER_ERROR' },
    });
  });
});
