/**
 * Attack: a caller slips the tenant into a tool's arguments (`org_id: 'globex'`) to reach another
 * tenant's data. Every path denies it before the tool runs, with ONE code, TENANT_ARGUMENT: the
 * runtime's policy, an in-process registration, and a domain server served over HTTP on
 * 127.0.0.1 (read through McpToolAdapter and in the served audit record). Before, the runtime said
 * TENANT_ARGUMENT and the domain server VALIDATION (INVALID_ARGUMENT), audited as a failure.
 *
 * And: a call's actor is the host's registration's, never the `_meta.actor` a caller sends.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpToolAdapter } from '../../src/adapter/mcp-tool-adapter.js';
import { McpClient } from '../../src/client/mcp-client.js';
import { defineServer } from '../../src/domain/define-server.js';
import { defineTool, type ToolContext } from '../../src/domain/define-tool.js';
import { registerInProcessServer } from '../../src/domain/in-process-server.js';
import { serveOverHttp, type HttpServedDomainServer } from '../../src/serve/serve-http.js';
import type { ServedAuditRecord } from '../../src/serve/served-access.js';
import { ToolRegistry } from '../../src/registry/tool-registry.js';
import { createRuntime, type Runtime } from '../../src/runtime/create-runtime.js';

const ran: ToolContext[] = [];
const roster = defineServer({
  name: 'roster',
  tools: [
    defineTool({
      name: 'roster_list_shifts',
      domain: 'roster',
      category: 'read',
      description: 'Shifts of the tenant',
      input: { type: 'object' },
      call: (_params, ctx) => {
        ran.push(ctx);
        return { tenant: ctx.tenant };
      },
    }),
  ],
});

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  ran.length = 0;
  for (const close of closing.splice(0).reverse()) await close();
});

describe('a tenant argument', () => {
  it('is denied with TENANT_ARGUMENT by the runtime, before the tool runs', async () => {
    const runtime: Runtime = await createRuntime({
      config: {
        skills: { ops: { mcp_servers: ['roster'] } },
        actors: { assistant: { skills: ['ops'], permissions: { execute: 'allow' } } },
      },
      domainServers: [roster],
    });
    closing.push(() => runtime.shutdown());
    const actor = await runtime.activate('assistant', { tenant: 'acme' });
    const outcome = await actor.call('roster/roster_list_shifts', { ORG_ID: 'globex' });
    expect([outcome.status, outcome.error?.code]).toEqual(['rejected', 'TENANT_ARGUMENT']);
    expect(outcome.error?.message).toContain('tenant argument denied: "ORG_ID"');
    expect(ran).toEqual([]);
  });

  it('is denied with TENANT_ARGUMENT by an in-process registration', async () => {
    const registry = new ToolRegistry();
    registerInProcessServer(registry, roster, { tenant: 'acme', actor: 'agent-7' });
    const result = await registry.handlerOf('roster/roster_list_shifts')({ tenant_id: 'globex' }, {});
    expect([result.success, result.errorCode, result.failure?.code]).toEqual([false, 'TENANT_ARGUMENT', 'TENANT_ARGUMENT']);
    expect(ran).toEqual([]);
  });

  it('is denied with TENANT_ARGUMENT by a domain server served over HTTP, and audited as denied', async () => {
    const served: HttpServedDomainServer = await serveOverHttp(roster, { tenant: 'acme', host: '127.0.0.1', announce: false });
    closing.push(() => served.close());
    const audit: ServedAuditRecord[] = [];
    const subscription = served.audit$.subscribe((record) => audit.push(record));
    closing.push(() => {
      subscription.unsubscribe();
      return Promise.resolve();
    });

    const client = new McpClient({ name: 'roster', transport: 'streamable-http', url: served.url });
    const adapter = new McpToolAdapter(client);
    closing.push(() => client.dispose());
    closing.push(() => adapter.dispose());
    await adapter.connect();
    const result = await adapter.invoke('roster_list_shifts', { org_id: 'globex' });
    expect([result.success, result.errorCode, result.failure?.code]).toEqual([false, 'TENANT_ARGUMENT', 'TENANT_ARGUMENT']);
    expect(result.error).toMatch(/^tenant argument denied: "org_id"/);
    expect(audit).toMatchObject([
      { tenant: 'acme', tool: 'roster_list_shifts', outcome: 'denied', errorCode: 'TENANT_ARGUMENT', rule: 'tenant-argument' },
    ]);
    expect(ran).toEqual([]);
  });
});

describe("a call's actor", () => {
  it("is the registration's; a registration that names none has none, whatever _meta.actor says", async () => {
    const registry = new ToolRegistry();
    registerInProcessServer(registry, roster, { tenant: 'acme' });
    registerInProcessServer(registry, roster, { namespace: 'named', tenant: 'acme', actor: 'agent-7' });
    await registry.handlerOf('roster/roster_list_shifts')({}, { meta: { actor: 'admin' } });
    await registry.handlerOf('named/roster_list_shifts')({}, { meta: { actor: 'admin' } });
    expect(ran.map((ctx) => ctx.actor)).toEqual([undefined, 'agent-7']);
  });
});
