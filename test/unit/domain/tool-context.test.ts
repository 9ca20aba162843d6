/**
 * Richer domain tools: MCP content results (toolContent), ctx.progress / ctx.log, ctx.elicit /
 * ctx.sample only when the client declared them — in-process (hooks and runtime events) and over
 * the wire (an SDK client on an in-memory transport).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { defineServer } from '../../../src/domain/define-server.js';
import { defineTool, type ToolContext } from '../../../src/domain/define-tool.js';
import { registerInProcessServer, type LogEntry, type ProgressUpdate } from '../../../src/domain/in-process-server.js';
import type { ServedAuditRecord } from '../../../src/serve/served-access.js';
import { serveOverStdio, type ServeOptions } from '../../../src/serve/serve-stdio.js';
import { toolContent } from '../../../src/domain/tool-content.js';
import { ToolRegistry } from '../../../src/registry/tool-registry.js';
import { createRuntime } from '../../../src/runtime/create-runtime.js';
import type { RuntimeEvent } from '../../../src/runtime/runtime-events.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
let lastCtx: ToolContext | undefined;

const charts = defineServer({
  name: 'charts',
  tools: [
    defineTool({
      name: 'charts_week',
      domain: 'charts',
      category: 'read',
      description: 'The week as text, an image and a link.',
      input: { type: 'object', properties: {} },
      call: (_params, ctx) => {
        ctx.progress(1, 2, 'drawing');
        ctx.log('debug', 'details');
        ctx.log('warning', { slow: true }, 'charts');
        ctx.progress(2, 2);
        return toolContent([
          { type: 'text', text: 'Week 19:' },
          { type: 'image', data: PNG, mimeType: 'image/png' },
          { type: 'resource_link', uri: 'charts://week/19', name: 'week 19' },
        ]);
      },
    }),
    defineTool({
      name: 'charts_typed',
      domain: 'charts',
      category: 'read',
      description: 'Content with structured content checked against the output schema.',
      input: { type: 'object', properties: { bad: { type: 'boolean' } } },
      output: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
      call: ({ bad }: { bad?: boolean }) =>
        toolContent({ type: 'text', text: 'three' }, { structuredContent: { count: bad ? 'three' : 3 } }),
    }),
    defineTool({
      name: 'charts_broken',
      domain: 'charts',
      category: 'read',
      description: 'Returns a block MCP does not know.',
      input: { type: 'object', properties: {} },
      call: () => toolContent({ type: 'video', data: 'x' } as never),
    }),
    defineTool({
      name: 'charts_ask',
      domain: 'charts',
      category: 'read',
      description: 'Asks the user and the model when it can.',
      input: { type: 'object', properties: {} },
      call: async (_params, ctx) => {
        lastCtx = ctx;
        const answer = ctx.elicit
          ? await ctx.elicit({ message: 'Which week?', requestedSchema: { type: 'object', properties: { week: { type: 'integer' } } } })
          : undefined;
        const sampled = ctx.sample
          ? await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 })
          : undefined;
        return { elicited: answer?.content ?? null, sampled: sampled === undefined ? null : (sampled.content as { text: string }).text };
      },
    }),
  ],
});

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((item) => item.close()));
  lastCtx = undefined;
});

async function wired(capabilities: ConstructorParameters<typeof Client>[1] = {}, options: Omit<ServeOptions, 'transport'> = {}) {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const audit: ServedAuditRecord[] = [];
  const served = await serveOverStdio(charts, {
    tenant: 'acme',
    announce: false,
    transport: serverTransport,
    onAudit: (r) => audit.push(r),
    ...options,
  });
  opened.push(served);
  const client = new Client({ name: 'test', version: '1.0.0' }, capabilities);
  const logs: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  await client.connect(clientTransport);
  opened.push(client);
  return { client, logs, audit, served };
}

describe('a domain tool returning MCP content', () => {
  it('keeps several blocks as they are in-process and over the wire', async () => {
    const registry = new ToolRegistry();
    registerInProcessServer(registry, charts, { tenant: 'acme' });
    const local = await registry.handlerOf('charts/charts_week')({}, {});
    expect(local).toMatchObject({ success: true, data: undefined });
    expect(local.content.map((block) => block.type)).toEqual(['text', 'image', 'resource_link']);

    const { client } = await wired();
    const wire = (await client.callTool({ name: 'charts_week', arguments: {} })) as CallToolResult;
    expect(wire.content).toEqual(local.content);
    expect(wire.structuredContent).toBeUndefined();
  });

  it('checks structured content beside content against the output schema, and refuses unknown blocks', async () => {
    const registry = new ToolRegistry();
    registerInProcessServer(registry, charts, { tenant: 'acme' });
    expect(await registry.handlerOf('charts/charts_typed')({}, {})).toMatchObject({
      success: true,
      data: { count: 3 },
      content: [{ type: 'text', text: 'three' }],
    });
    expect(await registry.handlerOf('charts/charts_typed')({ bad: true }, {})).toMatchObject({
      success: false,
      errorCode: 'OUTPUT_VALIDATION',
    });
    const broken = await registry.handlerOf('charts/charts_broken')({}, {});
    expect(broken).toMatchObject({ success: false, errorCode: 'OUTPUT_VALIDATION' });
    expect(broken.error).toContain('content[0] (type "video") is not an MCP content block');
  });
});

describe('ctx.progress and ctx.log', () => {
  it('reach the hooks of an in-process registration with the call they belong to', async () => {
    const progress: { update: ProgressUpdate; tool: string }[] = [];
    const logs: LogEntry[] = [];
    const registry = new ToolRegistry();
    registerInProcessServer(registry, charts, {
      tenant: 'acme',
      onProgress: (update, call) => progress.push({ update, tool: call.tool }),
      onLog: (entry) => logs.push(entry),
    });
    await registry.handlerOf('charts/charts_week')({}, {});
    expect(progress).toEqual([
      { update: { progress: 1, total: 2, message: 'drawing' }, tool: 'charts/charts_week' },
      { update: { progress: 2, total: 2 }, tool: 'charts/charts_week' },
    ]);
    expect(logs).toEqual([
      { level: 'debug', data: 'details' },
      { level: 'warning', data: { slow: true }, logger: 'charts' },
    ]);
  });

  it('become runtime events for an actor calling the domain server in-process', async () => {
    const rt = await createRuntime({
      config: { skills: { charts: { mcp_servers: ['charts'] } }, actors: { viewer: { skills: ['charts'] } } },
      domainServers: [charts],
    });
    opened.push({ close: () => rt.shutdown() });
    const events: RuntimeEvent[] = [];
    rt.events$.subscribe((event) => events.push(event));
    const viewer = await rt.activate('viewer', { tenant: 'acme' });
    await viewer.call('charts/charts_week', {});
    const reported = events.filter((e) => e.type === 'call.progress' || e.type === 'call.log').map(({ callId: _callId, ...rest }) => rest);
    expect(reported).toEqual([
      { type: 'call.progress', actor: 'viewer', tenant: 'acme', tool: 'charts/charts_week', progress: 1, total: 2, message: 'drawing' },
      { type: 'call.log', actor: 'viewer', tenant: 'acme', tool: 'charts/charts_week', level: 'debug', data: 'details' },
      {
        type: 'call.log',
        actor: 'viewer',
        tenant: 'acme',
        tool: 'charts/charts_week',
        level: 'warning',
        data: { slow: true },
        logger: 'charts',
      },
      { type: 'call.progress', actor: 'viewer', tenant: 'acme', tool: 'charts/charts_week', progress: 2, total: 2 },
    ]);
  });

  it('become notifications over the wire: progress to a caller that asked for it, logs from the level the client set', async () => {
    const { client, logs } = await wired();
    const updates: unknown[] = [];
    await client.callTool({ name: 'charts_week', arguments: {} }, undefined, { onprogress: (p) => void updates.push(p) });
    expect(updates).toEqual([
      { progress: 1, total: 2, message: 'drawing' },
      { progress: 2, total: 2 },
    ]);
    expect(logs).toEqual([
      { level: 'debug', data: 'details' },
      { level: 'warning', data: { slow: true }, logger: 'charts' },
    ]);
    logs.length = 0;
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'charts_week', arguments: {} });
    expect(logs).toEqual([{ level: 'warning', data: { slow: true }, logger: 'charts' }]);
  });
});

describe('ctx.elicit and ctx.sample', () => {
  it('are absent when the client declared neither, and the tool sees that', async () => {
    const { client } = await wired();
    const answer = (await client.callTool({ name: 'charts_ask', arguments: {} })) as CallToolResult;
    expect(answer.structuredContent).toEqual({ elicited: null, sampled: null });
    expect(lastCtx?.elicit).toBeUndefined();
    expect(lastCtx?.sample).toBeUndefined();
  });

  it('ask the client when it declared elicitation and sampling', async () => {
    const { client } = await wired({ capabilities: { elicitation: {}, sampling: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { week: 19 } }));
    client.setRequestHandler(CreateMessageRequestSchema, () => ({
      role: 'assistant',
      content: { type: 'text', text: 'hello' },
      model: 'm',
    }));
    const answer = (await client.callTool({ name: 'charts_ask', arguments: {} })) as CallToolResult;
    expect(answer.structuredContent).toEqual({ elicited: { week: 19 }, sampled: 'hello' });
  });
});

describe('the audit trail of a served server', () => {
  it('records every call, also an unknown tool, on onAudit and audit$ alike', async () => {
    const { client, audit, served } = await wired();
    const streamed: ServedAuditRecord[] = [];
    served.audit$.subscribe((record) => streamed.push(record));
    await client.callTool({ name: 'charts_week', arguments: {} });
    await client.callTool({ name: 'charts_broken', arguments: {} });
    await expect(client.callTool({ name: 'charts_nothing', arguments: {} })).rejects.toThrow();
    expect(
      audit.map(({ tool, outcome, category, errorCode, tenant, transport }) => ({ tool, outcome, category, errorCode, tenant, transport })),
    ).toEqual([
      { tool: 'charts_week', outcome: 'succeeded', category: 'read', errorCode: undefined, tenant: 'acme', transport: 'stdio' },
      { tool: 'charts_broken', outcome: 'failed', category: 'read', errorCode: 'OUTPUT_VALIDATION', tenant: 'acme', transport: 'stdio' },
      { tool: 'charts_nothing', outcome: 'failed', category: undefined, errorCode: 'NOT_FOUND', tenant: 'acme', transport: 'stdio' },
    ]);
    expect(streamed).toEqual(audit);
  });
});
