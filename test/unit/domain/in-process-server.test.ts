import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { isConfigError, isMcpActorsError, type McpActorsError } from '../../../src/errors/index.js';
import { defineServer, type DomainServer } from '../../../src/domain/define-server.js';
import { defineTool, type DomainTool, type ToolContext } from '../../../src/domain/define-tool.js';
import { registerInProcessServer, type RegisterInProcessOptions } from '../../../src/domain/in-process-server.js';
import type { InvokeOptions, ToolResult } from '../../../src/registry/tool-descriptor.js';
import { ToolRegistry } from '../../../src/registry/tool-registry.js';
import { thrownBy } from '../../support/rejection.js';
import { anyOf, stringContaining } from '../../support/matchers.js';

const SHIFTS = [
  { id: 's1', date: '2026-05-01' },
  { id: 's2', date: '2026-05-02' },
  { id: 's3', date: '2026-05-09' },
];

const listShifts = defineTool({
  name: 'roster_list_shifts',
  domain: 'roster',
  category: 'read',
  description: 'Lists the shifts between two dates.',
  input: {
    type: 'object',
    properties: { date_from: { type: 'string', format: 'date' }, date_to: { type: 'string', format: 'date' } },
    required: ['date_from', 'date_to'],
  },
  output: {
    type: 'object',
    properties: { shifts: { type: 'array' }, tenant: { type: 'string' } },
    required: ['shifts', 'tenant'],
  },
  call: ({ date_from, date_to }: { date_from: string; date_to: string }, ctx) => ({
    shifts: SHIFTS.filter((shift) => shift.date >= date_from && shift.date <= date_to),
    tenant: ctx.tenant,
  }),
});

function tool(name: string, category: DomainTool['category'], call: DomainTool['call'], output?: DomainTool['output']): DomainTool {
  return defineTool({
    name,
    domain: 'roster',
    category,
    description: `${name} for the tests`,
    input: { type: 'object', properties: {} },
    ...(output ? { output } : {}),
    call,
  });
}

const roster = defineServer({
  name: 'roster',
  version: '1.0.0',
  tools: [
    listShifts,
    tool('roster_propose_assignment', 'propose', () => ({ proposal_id: 'p1' })),
    tool('roster_delete_shift', 'execute', () => undefined),
    tool('roster_purge', 'restricted', () => ({ purged: 3 })),
  ],
});

function registered(server: DomainServer, options: Partial<RegisterInProcessOptions> = {}): ToolRegistry {
  const registry = new ToolRegistry();
  registerInProcessServer(registry, server, { tenant: 'acme', ...options });
  return registry;
}

function call(registry: ToolRegistry, name: string, args: Record<string, unknown> = {}, options: InvokeOptions = {}): Promise<ToolResult> {
  return registry.handlerOf(name)(args, options);
}

/** A server of one tool whose `call` is `fn`, registered; returns the handler's caller. */
function oneTool(fn: DomainTool['call'], options: Partial<RegisterInProcessOptions> = {}, output?: DomainTool['output']) {
  const registry = registered(defineServer({ name: 'probe', tools: [tool('probe', 'read', fn, output)] }), options);
  return (args: Record<string, unknown> = {}, invoke: InvokeOptions = {}) => call(registry, 'probe/probe', args, invoke);
}

/** A one-tool server whose call never ends by itself; `toolSignal()` is the signal the call was given. */
function hangingTool() {
  let toolSignal: AbortSignal | undefined;
  const probe = oneTool((_params, ctx) => {
    toolSignal = ctx.signal;
    return new Promise(() => undefined);
  });
  return { probe, toolSignal: () => toolSignal };
}

const thrown = (run: () => unknown): McpActorsError => thrownBy(run, isMcpActorsError, 'expected a throw');

describe('registerInProcessServer', () => {
  it('registers every tool as <namespace>/<tool> with source custom and the server in sourceMetadata', () => {
    const registry = new ToolRegistry();
    const descriptors = registerInProcessServer(registry, roster, { tenant: 'acme' });
    expect(descriptors.map((d) => d.name)).toEqual([
      'roster/roster_list_shifts',
      'roster/roster_propose_assignment',
      'roster/roster_delete_shift',
      'roster/roster_purge',
    ]);
    const list = registry.get('roster/roster_list_shifts')!;
    expect(list).toMatchObject({
      namespace: 'roster',
      toolName: 'roster_list_shifts',
      description: 'Lists the shifts between two dates.',
      inputSchema: listShifts.input,
      outputSchema: listShifts.output,
      source: 'custom',
      sourceMetadata: { server: 'roster', domain: 'roster', category: 'read', inProcess: true },
      checkpointable: false,
      annotations: { readOnlyHint: true },
    });
    expect(registry.list({ source: 'custom' })).toHaveLength(4);
  });

  it('derives the capabilities from the category, recorded as an override with its provenance', () => {
    const registry = registered(roster);
    const capabilities = (name: string) => registry.get(`roster/${name}`)!.capabilities;
    expect(capabilities('roster_list_shifts')).toMatchObject({ readOnly: true, writes: false, destructive: false });
    expect(capabilities('roster_propose_assignment')).toMatchObject({ readOnly: false, writes: true, destructive: false });
    expect(capabilities('roster_delete_shift')).toMatchObject({ readOnly: false, writes: true, destructive: true });
    expect(capabilities('roster_purge')).toMatchObject({ readOnly: false, writes: true, destructive: true });
    const purge = registry.get('roster/roster_purge')!;
    expect(purge.provenance.destructive).toEqual({ source: 'override', detail: 'override at category restricted of roster/roster_purge' });
    expect(purge.inference?.overrides).toEqual([
      { at: 'category restricted of roster/roster_purge', values: { writes: true, destructive: true } },
    ]);
  });

  it('uses the namespace option, and registering again replaces the namespace (a new tenant, a new version)', async () => {
    const registry = new ToolRegistry();
    registerInProcessServer(registry, roster, { tenant: 'acme', namespace: 'shifts' });
    expect(registry.namespaces()).toEqual(['shifts']);
    registerInProcessServer(registry, defineServer({ name: 'roster', tools: [listShifts] }), { tenant: 'globex', namespace: 'shifts' });
    expect(registry.list().map((d) => d.name)).toEqual(['shifts/roster_list_shifts']);
    const result = await call(registry, 'shifts/roster_list_shifts', { date_from: '2026-05-01', date_to: '2026-05-01' });
    expect(result.data).toMatchObject({ tenant: 'globex' });
  });

  it('refuses a namespace that already holds tools from another source', () => {
    const registry = registered(roster);
    const other = defineServer({ name: 'staffing', tools: [listShifts] });
    const error = thrown(() => registerInProcessServer(registry, other, { tenant: 'acme', namespace: 'roster' }));
    expect(error.code).toBe('DUPLICATE_NAME');
    expect(error.message).toContain('server "roster"');
  });

  it('needs a tenant, a usable tenant key and namespace', () => {
    const registry = new ToolRegistry();
    expect(thrown(() => registerInProcessServer(registry, roster, {} as RegisterInProcessOptions)).code).toBe('INVALID_ARGUMENT');
    expect(thrown(() => registerInProcessServer(registry, roster, { tenant: '' })).message).toContain('options.tenant');
    expect(thrown(() => registerInProcessServer(registry, roster, { tenant: 'acme', tenantKey: 'signal' })).message).toContain('tenantKey');
    expect(thrown(() => registerInProcessServer(registry, roster, { tenant: 'acme', namespace: 'a/b' })).code).toBe('INVALID_ARGUMENT');
    expect(registry.size).toBe(0);
  });

  it('refuses a tool whose input schema declares the configured tenant key', () => {
    const server = defineServer({
      name: 'crm',
      tools: [defineTool({ ...listShifts, input: { type: 'object', properties: { company_id: { type: 'string' } } } })],
    });
    let error: unknown;
    try {
      registerInProcessServer(new ToolRegistry(), server, { tenant: 'acme', tenantKey: 'company_id' });
    } catch (caught) {
      error = caught;
    }
    expect(isConfigError(error) && error.problems.map((p) => p.path)).toEqual(['crm/roster_list_shifts.input.properties.company_id']);
  });
});

describe('an in-process call', () => {
  it('returns the protocol shape: success, the JSON text as content, the structured data', async () => {
    const result = await call(registered(roster), 'roster/roster_list_shifts', { date_from: '2026-05-01', date_to: '2026-05-03' });
    const data = { shifts: [SHIFTS[0], SHIFTS[1]], tenant: 'acme' };
    expect(result).toEqual({
      success: true,
      content: [{ type: 'text', text: JSON.stringify(data) }],
      data,
      error: undefined,
      errorCode: undefined,
      durationMs: anyOf(Number),
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('gives empty content and no data for a tool that returns nothing', async () => {
    const result = await call(registered(roster), 'roster/roster_delete_shift');
    expect(result).toMatchObject({ success: true, content: [], data: undefined });
  });

  it('injects the tenant from the registration as ctx.tenant and ctx.org_id, with the actor and a call id', async () => {
    const seen: ToolContext[] = [];
    const probe = oneTool((_params, ctx) => void seen.push(ctx), { tenant: 'acme', actor: 'agent-7' });
    await probe();
    await probe();
    expect(seen[0]).toMatchObject({ tenant: 'acme', org_id: 'acme', actor: 'agent-7' });
    expect(seen[0]!.callId).toMatch(/^call-/);
    expect(seen[1]!.callId).not.toBe(seen[0]!.callId);
  });

  it('sets the tenant under a configured tenant key and takes callId from _meta, but never the actor', async () => {
    const seen: ToolContext[] = [];
    const probe = oneTool((_params, ctx) => void seen.push(ctx), { tenant: 'acme', tenantKey: 'company_id' });
    await probe({}, { meta: { callId: 'c-42', actor: 'user-1', tenant: 'acme' } });
    expect(seen[0]).toMatchObject({ tenant: 'acme', company_id: 'acme', callId: 'c-42' });
    expect(seen[0]!.org_id).toBeUndefined();
    // A registration that names no actor has none: a caller's _meta.actor is a claim, not an identity.
    expect(seen[0]!.actor).toBeUndefined();
  });

  it("keeps the registration's actor whatever the call's _meta.actor says", async () => {
    const seen: ToolContext[] = [];
    const probe = oneTool((_params, ctx) => void seen.push(ctx), { tenant: 'acme', actor: 'agent-7' });
    await probe({}, { meta: { actor: 'admin', callId: 'c-1' } });
    expect(seen[0]).toMatchObject({ actor: 'agent-7', callId: 'c-1' });
  });

  it.each(['org_id', 'tenant', 'tenant_id', 'ORG_ID', 'Tenant', 'tenant_ID'])(
    'refuses an argument named %s and never calls the tool',
    async (key) => {
      const fn = vi.fn(() => ({}));
      const result = await oneTool(fn)({ [key]: 'evil-corp' });
      expect(fn).not.toHaveBeenCalled();
      expect(result.success).toBe(false);
      expect(result.errorCode).toBe('TENANT_ARGUMENT');
      expect(result.failure?.code).toBe('TENANT_ARGUMENT');
      expect(result.error).toMatch(/^tenant argument denied:/);
      expect(result.error).toContain(`"${key}"`);
      expect(result.error).toContain('the tenant comes from the session');
      expect(result.violations).toEqual([{ path: `/${key}`, message: stringContaining('tenant') }]);
    },
  );

  it('refuses the configured tenant key and extra tenant names as arguments', async () => {
    const fn = vi.fn(() => ({}));
    const probe = oneTool(fn, { tenantKey: 'company_id', tenantArgumentNames: ['org_id', 'workspace'] });
    for (const key of ['company_id', 'Company_Id', 'workspace', 'org_id']) {
      expect((await probe({ [key]: 'x' })).error).toMatch(/^tenant argument denied:/);
    }
    expect((await probe({ tenant: 'x' })).success).toBe(true); // not a tenant name under this configuration
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('refuses a call whose _meta names another tenant (a cross-tenant bug upstream)', async () => {
    const fn = vi.fn(() => ({}));
    const probe = oneTool(fn, { tenant: 'acme' });
    const result = await probe({}, { meta: { tenant: 'globex' } });
    expect(result).toMatchObject({ success: false, errorCode: 'TENANT_MISMATCH' });
    expect(result.error).toMatch(/^tenant mismatch/);
    expect((await probe({}, { meta: { org_id: 'globex' } })).success).toBe(false);
    expect((await probe({}, { meta: { tenant: 'acme', org_id: 'globex' } })).success).toBe(false);
    expect(fn).not.toHaveBeenCalled();
    expect((await probe({}, { meta: { org_id: 'acme' } })).success).toBe(true);
  });

  it('validates the arguments against the input schema before the call', async () => {
    const result = await call(registered(roster), 'roster/roster_list_shifts', { date_from: 'yesterday' });
    expect(result).toMatchObject({ success: false, errorCode: 'VALIDATION', data: undefined });
    expect(result.error).toContain('validation failed for "roster/roster_list_shifts"');
    expect(result.violations).toEqual(
      expect.arrayContaining([
        { path: '/', message: "must have required property 'date_to'" },
        { path: '/date_from', message: 'must match format "date"' },
      ]),
    );
    expect(result.content).toEqual([{ type: 'text', text: result.error }]);
  });

  it('runs without options at all', async () => {
    const handler = registered(roster).handlerOf('roster/roster_purge') as (args: Record<string, unknown>) => Promise<ToolResult>;
    expect((await handler({})).data).toEqual({ purged: 3 });
  });

  it('refuses arguments that are not an object', async () => {
    const result = await oneTool(() => ({}))(null as unknown as Record<string, unknown>);
    expect(result.errorCode).toBe('VALIDATION');
  });

  it('checks the output against the output schema', async () => {
    const output = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] };
    const result = await oneTool(() => ({ count: 'three' }), {}, output)();
    expect(result).toMatchObject({ success: false, errorCode: 'OUTPUT_VALIDATION', data: undefined });
    expect(result.violations).toEqual([{ path: '/count', message: 'must be integer' }]);
    expect((await oneTool(() => undefined, {}, output)()).error).toContain('returned nothing');
  });

  it('refuses an output that is neither a JSON object, a string, toolContent nor nothing', async () => {
    expect((await oneTool(() => [1, 2])()).error).toContain('not an array (wrap content blocks in toolContent([...]))');
    expect((await oneTool(() => 42)()).error).toContain('not a number');
    expect((await oneTool(() => null)()).error).toContain('not null');
    expect((await oneTool(() => ({ big: 1n }))()).error).toContain('the output is not JSON');
    expect((await oneTool(() => [1])()).errorCode).toBe('OUTPUT_VALIDATION');
  });

  it('turns a throw or a rejection into SERVER_ERROR with its message', async () => {
    const sync = await oneTool(() => {
      throw new Error('no such shift');
    })();
    expect(sync).toMatchObject({ success: false, errorCode: 'SERVER_ERROR', error: 'tool "probe/probe" failed: no such shift' });
    const rejected = await oneTool(async () => Promise.reject(new Error('db down')))({}, { timeoutMs: 1_000 });
    expect(rejected).toMatchObject({ success: false, errorCode: 'SERVER_ERROR', error: 'tool "probe/probe" failed: db down' });
    expect((await oneTool(() => Promise.reject(new Error('plain')))()).error).toContain('plain');
  });

  it('awaits an async tool', async () => {
    const result = await oneTool((_params, ctx) => Promise.resolve({ tenant: ctx.tenant }))();
    expect(result).toMatchObject({ success: true, data: { tenant: 'acme' } });
  });
});

describe('timeouts and cancellation', () => {
  it('times out a slow tool and aborts its ctx.signal with a TimeoutError', async () => {
    let signal: AbortSignal | undefined;
    const probe = oneTool((_params, ctx) => {
      signal = ctx.signal;
      return new Promise(() => undefined);
    });
    const result = await probe({}, { timeoutMs: 20 });
    expect(result).toMatchObject({ success: false, errorCode: 'REQUEST_TIMEOUT' });
    expect(result.error).toContain('did not finish within 20 ms');
    expect(signal?.aborted).toBe(true);
    expect((signal?.reason as DOMException).name).toBe('TimeoutError');
  });

  it('hands a tool that reads ctx.signal only after the timeout an aborted signal', async () => {
    let late: Promise<boolean> | undefined;
    const probe = oneTool((_params, ctx) => {
      late = new Promise((resolve) => setTimeout(() => resolve(ctx.signal.aborted), 40));
      return late.then(() => ({}));
    });
    expect((await probe({}, { timeoutMs: 10 })).errorCode).toBe('REQUEST_TIMEOUT');
    expect(await late).toBe(true);
  });

  it('does not time out a tool that answers in time, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    try {
      const result = await oneTool(() => Promise.resolve({ ok: true }))({}, { timeoutMs: 60_000 });
      expect(result.success).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('treats a deadline too long for a timer as none', async () => {
    const result = await oneTool(() => new Promise((resolve) => setTimeout(() => resolve({}), 5)))({}, { timeoutMs: 2 ** 40 });
    expect(result.success).toBe(true);
  });

  it('does not call the tool when the signal is already aborted', async () => {
    const fn = vi.fn(() => ({}));
    const result = await oneTool(fn)({}, { signal: AbortSignal.abort() });
    expect(result).toMatchObject({ success: false, errorCode: 'CANCELLED' });
    expect(fn).not.toHaveBeenCalled();
  });

  it('cancels a running call when the caller aborts, and the tool sees its signal aborted', async () => {
    const controller = new AbortController();
    const { probe, toolSignal } = hangingTool();
    const pending = probe({}, { signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ success: false, errorCode: 'CANCELLED' });
    expect(toolSignal()?.aborted).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('cancels a call that also has a timeout, aborting the tool with the caller reason', async () => {
    const controller = new AbortController();
    const { probe, toolSignal } = hangingTool();
    const pending = probe({}, { signal: controller.signal, timeoutMs: 5_000 });
    controller.abort(new Error('user pressed stop'));
    expect((await pending).errorCode).toBe('CANCELLED');
    expect(toolSignal()?.aborted).toBe(true);
    expect((toolSignal()?.reason as Error).message).toBe('user pressed stop');
  });

  it('removes its abort listener when a call completes, so a session signal does not collect listeners', async () => {
    const session = new AbortController();
    const probe = oneTool(() => Promise.resolve({}));
    for (let i = 0; i < 5; i += 1) await probe({}, { signal: session.signal, timeoutMs: 1_000 });
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0);
  });

  it('gives a tool without timeout or signal a signal that never aborts', async () => {
    let signal: AbortSignal | undefined;
    await oneTool((_params, ctx) => void (signal = ctx.signal))();
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal?.aborted).toBe(false);
  });

  it('gives a tool the caller signal itself when there is no timeout', async () => {
    const controller = new AbortController();
    let signal: AbortSignal | undefined;
    await oneTool((_params, ctx) => void (signal = ctx.signal))({}, { signal: controller.signal });
    expect(signal).toBe(controller.signal);
  });
});
