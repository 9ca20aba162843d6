/**
 * The actor runtime end to end: real servers (the fixture over stdio, @modelcontextprotocol/server-memory)
 * and an in-process domain server, tenants, permissions, inspection, activation failures, and a
 * shutdown that leaves no process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ActorRefFrom, InspectionEvent } from 'xstate';
import type { serverSupervisor } from '../../src/runtime/server-supervisor.js';
import { defineServer } from '../../src/domain/define-server.js';
import { defineTool } from '../../src/domain/define-tool.js';
import { createRuntime, type Runtime } from '../../src/runtime/create-runtime.js';
import type { RuntimeEvent } from '../../src/runtime/runtime-events.js';
import { inferCapabilities } from '../../src/registry/capabilities.js';
import type { ToolDescriptor, ToolHandler } from '../../src/registry/tool-descriptor.js';
import { fixtureArgs, fixtureServerPath } from '../../src/testing/fixture.js';
import { referenceServerPath } from '../../src/testing/reference-servers.js';
import { expectAllGone } from '../support/processes.js';
import { stringContaining } from '../support/matchers.js';

let memoryDir: string;
beforeAll(() => {
  memoryDir = mkdtempSync(join(tmpdir(), 'mcp-actors-runtime-'));
});
afterAll(() => rmSync(memoryDir, { recursive: true, force: true }));

const seen: { tenant: unknown; orgId: unknown }[] = [];
const roster = defineServer({
  name: 'roster',
  tools: [
    defineTool({
      name: 'roster_list_shifts',
      domain: 'roster',
      category: 'read',
      description: 'Shifts of the tenant',
      input: { type: 'object', properties: { site: { type: 'string' } } },
      call: (_params, ctx) => {
        seen.push({ tenant: ctx.tenant, orgId: ctx.org_id });
        return { shifts: [`${ctx.tenant}-morning`] };
      },
    }),
    defineTool({
      name: 'roster_propose_swap',
      domain: 'roster',
      category: 'propose',
      description: 'Proposes a swap',
      input: { type: 'object' },
      call: () => ({ proposal: 'p-1' }),
    }),
    defineTool({
      name: 'roster_delete_shift',
      domain: 'roster',
      category: 'execute',
      description: 'Deletes a shift',
      input: { type: 'object' },
      call: () => ({ deleted: true }),
    }),
    defineTool({
      name: 'roster_purge',
      domain: 'roster',
      category: 'restricted',
      description: 'Purges everything',
      input: { type: 'object' },
      call: () => ({ purged: true }),
    }),
  ],
});

const pidLog = process.env.MCP_ACTORS_PID_LOG ? { MCP_ACTORS_PID_LOG: process.env.MCP_ACTORS_PID_LOG } : {};
function config(extra: { fixtureArgs?: string[] } = {}) {
  return {
    servers: {
      fixture: {
        command: process.execPath,
        args: [fixtureServerPath(), ...(extra.fixtureArgs ?? [])],
        env: { ...pidLog, FIXTURE_TENANT: '${TENANT}' },
        backoff: { initial_ms: 20 },
        max_restarts: 1,
      },
      memory: {
        command: process.execPath,
        args: [referenceServerPath('memory')],
        env: { ...pidLog, MEMORY_FILE_PATH: join(memoryDir, '${TENANT}.jsonl') },
      },
      broken: {
        command: process.execPath,
        args: [fixtureServerPath(), ...fixtureArgs({ exitOnStart: 1 })],
        env: pidLog,
        max_restarts: 1,
        backoff: { initial_ms: 10 },
      },
    },
    skills: {
      ops: { mcp_servers: ['fixture', 'roster'] },
      memory: { mcp_servers: [{ server: 'memory', include: ['read_graph', 'create_entities'] }] },
      flaky: { mcp_servers: ['broken'] },
      flaky_required: { mcp_servers: [{ server: 'broken', required: true }] },
    },
    actors: {
      assistant: { skills: ['ops', 'memory'], permissions: { execute: 'allow' } },
      cautious: { skills: ['ops'], permissions: { execute: 'ask' } },
      locked: { skills: ['ops'], permissions: { execute: 'deny', restricted: ['roster/roster_purge'] } },
    },
  };
}

const runtimes: Runtime[] = [];
async function runtime(options: Partial<Parameters<typeof createRuntime>[0]> = {}): Promise<Runtime> {
  const created = await createRuntime({ config: config(), domainServers: [roster], callTimeoutMs: 10_000, ...options });
  runtimes.push(created);
  return created;
}

afterEach(async () => {
  for (const r of runtimes.splice(0)) {
    const pids = r
      .status()
      .servers.map((s) => s.pid)
      .filter((p): p is number => p !== undefined);
    await r.shutdown();
    await expectAllGone(pids, pids);
  }
});

function text(outcome: { result?: { content: readonly Record<string, unknown>[] } | undefined }): string {
  return String(outcome.result?.content[0]?.text);
}

describe('createRuntime', () => {
  it('activates an actor with two skills over three servers, calls each, deactivates and leaves no process', async () => {
    const rt = await runtime();
    const events: RuntimeEvent[] = [];
    rt.events$.subscribe((e) => events.push(e));
    const assistant = await rt.activate('assistant', { tenant: 'acme' });
    const names = assistant.tools().map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['fixture/echo', 'roster/roster_list_shifts', 'memory/read_graph', 'memory/create_entities']),
    );
    expect(names).not.toContain('memory/delete_entities');
    expect(assistant.tools().find((t) => t.name === 'roster/roster_purge')!.category).toBe('restricted');

    expect(text(await assistant.call('fixture/echo', { message: 'hi' }))).toBe('hi');
    const shifts = await assistant.call('roster/roster_list_shifts', {});
    expect(shifts.status).toBe('committed');
    expect(shifts.result?.data).toEqual({ shifts: ['acme-morning'] });
    const created = await assistant.call('memory/create_entities', { entities: [{ name: 'x', entityType: 't', observations: ['o'] }] });
    expect(created.status).toBe('committed');
    expect(text(await assistant.call('memory/read_graph'))).toContain('"o"');

    const pids = rt.status().servers.map((s) => s.pid!);
    expect(pids).toHaveLength(2);
    await assistant.deactivate();
    expect(rt.status().servers).toEqual([]);
    await expectAllGone(pids, pids);
    const audit = events.filter((e) => e.type === 'call.ended');
    expect(audit).toHaveLength(4);
    expect(audit[0]).toMatchObject({ actor: 'assistant', tenant: 'acme', tool: 'fixture/echo', category: 'execute', status: 'committed' });
    expect(events.some((e) => e.type === 'server.state' && e.state === 'RUNNING')).toBe(true);
  });

  it('injects the tenant: in-process ctx, ${TENANT} in server config, and _meta of each call', async () => {
    const rt = await runtime();
    const actor = await rt.activate('assistant', { tenant: 'acme' });
    seen.length = 0;
    await actor.call('roster/roster_list_shifts', {});
    expect(seen).toEqual([{ tenant: 'acme', orgId: 'acme' }]);
    expect(text(await actor.call('fixture/env', { name: 'FIXTURE_TENANT' }))).toBe('acme');
    expect(JSON.parse(text(await actor.call('fixture/echo_meta')))).toMatchObject({ tenant: 'acme', org_id: 'acme' });
  });

  it('refuses an argument named like the tenant key, and says so on events$', async () => {
    const rt = await runtime();
    const events: RuntimeEvent[] = [];
    rt.events$.subscribe((e) => events.push(e));
    const actor = await rt.activate('assistant', { tenant: 'acme' });
    for (const key of ['org_id', 'tenant', 'Tenant_ID']) {
      const outcome = await actor.call('roster/roster_list_shifts', { [key]: 'other' });
      expect(outcome.status).toBe('rejected');
      expect(outcome.error?.code).toBe('TENANT_ARGUMENT');
    }
    expect(events.filter((e) => e.type === 'permission.denied')).toHaveLength(3);
  });

  it('gives each tenant its own server actors, and shares one between actors of the same tenant', async () => {
    const rt = await runtime();
    const a1 = await rt.activate('assistant', { tenant: 'acme' });
    const a2 = await rt.activate('cautious', { tenant: 'acme' });
    const b = await rt.activate('assistant', { tenant: 'globex' });
    await Promise.all([a1, a2, b].map((actor) => actor.call('fixture/echo', { message: 'x' })));
    const fixtures = rt.status().servers.filter((s) => s.server === 'fixture');
    expect(fixtures).toHaveLength(2);
    const acme = fixtures.find((s) => s.tenant === 'acme')!;
    const globex = fixtures.find((s) => s.tenant === 'globex')!;
    expect(acme.actors).toBe(2);
    expect(acme.pid).not.toBe(globex.pid);
    await a1.deactivate();
    expect(rt.status().servers.find((s) => s.server === 'fixture' && s.tenant === 'acme')?.actors).toBe(1);
    await a2.deactivate();
    expect(rt.status().servers.find((s) => s.server === 'fixture' && s.tenant === 'acme')).toBeUndefined();
    await expectAllGone([acme.pid!]);
  });

  it('owns the tree as statecharts: actor machines and a supervisor per tenant are children of the runtime machine, shared server actors children of the supervisor', async () => {
    const inspection: InspectionEvent[] = [];
    const rt = await runtime({ inspect: (event) => inspection.push(event) });
    // Who sent each acquire and release to the runtime's actor.
    const asked = (type: string): string[] =>
      inspection
        .filter(
          (e): e is InspectionEvent & { type: '@xstate.event' } =>
            e.type === '@xstate.event' && e.event.type === type && e.actorRef === rt.actor,
        )
        .map((e) => `${String((e.sourceRef as { id?: string } | undefined)?.id)} ${String((e.event as { holder?: string }).holder)}`);
    const children = (): string[] => Object.keys(rt.actor.getSnapshot().children).sort();
    const supervisor = () =>
      rt.actor.getSnapshot().context.supervisors['servers:acme']?.ref as ActorRefFrom<typeof serverSupervisor> | undefined;
    const held = (): Record<string, number> =>
      Object.fromEntries(
        Object.values(supervisor()?.getSnapshot().context.servers ?? {}).map((server) => [server.ref.id, server.holders.length]),
      );
    const a1 = await rt.activate('assistant', { tenant: 'acme' });
    const a2 = await rt.activate('assistant', { tenant: 'acme' });
    // Two actors of one name and tenant at once: labels stay readable and distinct.
    expect(children()).toEqual(['actor:assistant:acme', 'actor:assistant:acme (2)', 'servers:acme']);
    expect(Object.keys(supervisor()!.getSnapshot().children).sort()).toEqual(['server:fixture:acme', 'server:memory:acme']);
    expect(held()).toEqual({ 'server:fixture:acme': 2, 'server:memory:acme': 2 });
    // The actor machines asked for them, each naming itself as the holder.
    expect(asked('server.acquire').sort()).toEqual([
      'actor:assistant:acme (2) actor:assistant:acme:2',
      'actor:assistant:acme (2) actor:assistant:acme:2',
      'actor:assistant:acme actor:assistant:acme:1',
      'actor:assistant:acme actor:assistant:acme:1',
    ]);
    // Each actor machine lists the servers it holds (their supervisor owns them).
    const ids = (actor: typeof a1): string[] =>
      actor.actor
        .getSnapshot()
        .context.servers.map((server) => server.id)
        .sort();
    expect(ids(a1)).toEqual(['server:fixture:acme', 'server:memory:acme']);
    expect(ids(a2)).toEqual(ids(a1));
    const fixtureRef = Object.values(supervisor()!.getSnapshot().context.servers).find(
      (server) => server.ref.id === 'server:fixture:acme',
    )!.ref;
    const fixturePid = rt.status().servers.find((s) => s.server === 'fixture')!.pid;
    await a1.deactivate();
    expect(a1.actor.getSnapshot().status).toBe('stopped');
    expect(children()).toEqual(['actor:assistant:acme (2)', 'servers:acme']);
    expect(held()).toEqual({ 'server:fixture:acme': 1, 'server:memory:acme': 1 });
    await a2.deactivate();
    // The last holder let go: the servers were stopped cleanly, then their actors, then their supervisor.
    expect(asked('server.release')).toHaveLength(4);
    expect(children()).toEqual([]);
    expect(supervisor()).toBeUndefined();
    expect(fixtureRef.getSnapshot()).toMatchObject({ status: 'stopped' });
    if (fixturePid !== undefined) await expectAllGone([fixturePid]);
    // The same server is acquired afresh by the next actor.
    const again = await rt.activate('assistant', { tenant: 'acme' });
    expect(text(await again.call('fixture/echo', { message: 'again' }))).toBe('again');
    expect(held()).toEqual({ 'server:fixture:acme': 1, 'server:memory:acme': 1 });
  });

  it('applies the permission policy to each category', async () => {
    const approvals: string[] = [];
    let answer = true;
    const rt = await runtime({ approve: ({ tool, category }) => (approvals.push(`${tool.name}:${category}`), answer) });
    const locked = await rt.activate('locked', { tenant: 'acme' });
    expect((await locked.call('roster/roster_list_shifts', {})).status).toBe('committed');
    expect((await locked.call('roster/roster_propose_swap', {})).status).toBe('committed');
    const denied = await locked.call('roster/roster_delete_shift', {});
    expect(denied).toMatchObject({
      status: 'rejected',
      error: { code: 'PERMISSION_DENIED', details: { rule: 'permissions.execute: deny' } },
    });
    expect((await locked.call('roster/roster_purge', {})).status).toBe('committed');

    const cautious = await rt.activate('cautious', { tenant: 'acme' });
    expect((await cautious.call('roster/roster_delete_shift', {})).status).toBe('committed');
    answer = false;
    expect((await cautious.call('roster/roster_delete_shift', {})).error?.details.rule).toBe('permissions.execute: ask');
    expect(approvals).toEqual(['roster/roster_delete_shift:execute', 'roster/roster_delete_shift:execute']);
    const restricted = await cautious.call('roster/roster_purge', {});
    expect(restricted).toMatchObject({ status: 'rejected', error: { details: { rule: 'permissions.restricted' } } });
  });

  it('denies execute tools under "ask" when the host gave no approval callback', async () => {
    const rt = await runtime();
    const cautious = await rt.activate('cautious', { tenant: 'acme' });
    const outcome = await cautious.call('roster/roster_delete_shift', {});
    expect(outcome.error?.message).toContain('no approval callback');
  });

  it('activates an actor whose server crashes on start, reporting its tools unavailable', async () => {
    const rt = await runtime();
    const actor = await rt.activate({ name: 'tolerant', skills: ['flaky', 'ops'], permissions: { execute: 'allow' } }, { tenant: 'acme' });
    expect(actor.activation?.unavailable.map((u) => u.server)).toEqual(['broken']);
    expect(actor.activation?.unavailable[0]?.error.message).toContain('exiting on start');
    expect(actor.tools().some((t) => t.name.startsWith('broken/'))).toBe(false);
    expect(text(await actor.call('fixture/echo', { message: 'still works' }))).toBe('still works');
  });

  it('fails activation when a required server cannot start, and leaves no process', async () => {
    const rt = await runtime();
    const pids: number[] = [];
    rt.events$.subscribe((e) => {
      if (e.type === 'server.state' && e.pid !== undefined) pids.push(e.pid);
    });
    await expect(rt.activate({ name: 'strict', skills: ['flaky_required', 'ops'] }, { tenant: 'acme' })).rejects.toMatchObject({
      code: 'ACTIVATION_FAILED',
      message: stringContaining('broken'),
    });
    expect(rt.status().servers).toEqual([]);
    expect(rt.status().actors).toEqual([]);
    expect(pids.length).toBeGreaterThan(0);
    await expectAllGone(pids, pids);
  });

  it('shows the supervision tree to an inspector: runtime → actor → calls, runtime → shared servers', async () => {
    const inspection: InspectionEvent[] = [];
    const rt = await runtime({ inspect: (event) => inspection.push(event) });
    const actor = await rt.activate('assistant', { tenant: 'acme' });
    await actor.call('fixture/echo', { message: 'inspect me' });
    await actor.call('roster/roster_list_shifts', {});
    type Ref = { systemId?: string; id?: string };
    const idOf = (ref: Ref): string => ref.systemId ?? ref.id ?? '?';
    // Who started an actor: the source of the `xstate.init` event XState sends it as it starts.
    const inits = inspection.filter(
      (e): e is InspectionEvent & { type: '@xstate.event' } => e.type === '@xstate.event' && e.event.type === 'xstate.init',
    );
    const parentOf = new Map(inits.map((e) => [e.actorRef, e.sourceRef]));
    const actors = inspection.filter((e) => e.type === '@xstate.actor').map((e) => e.actorRef);
    const tree = Object.fromEntries(
      actors.map((ref) => [idOf(ref as Ref), parentOf.get(ref) ? idOf(parentOf.get(ref) as Ref) : undefined]),
    );
    const actorId = Object.keys(tree).find((id) => id.startsWith('actor:assistant:acme'))!;
    expect(tree.runtime).toBeUndefined();
    expect(tree[actorId]).toBe('runtime');
    // Server actors are shared by reference among the actors of a tenant: the tenant's supervisor owns them.
    expect(tree['servers:acme']).toBe('runtime');
    expect(tree['server:fixture:acme']).toBe('servers:acme');
    expect(tree['server:memory:acme']).toBe('servers:acme');
    const calls = Object.keys(tree).filter((id) => id.startsWith('call:'));
    expect(calls).toHaveLength(2);
    for (const call of calls) expect(tree[call]).toBe(actorId);
    const toolCallSnapshots = inspection.filter(
      (e) => e.type === '@xstate.snapshot' && idOf(e.actorRef as unknown as Ref).startsWith('call:'),
    );
    const visited = new Set(
      toolCallSnapshots.map((e) => JSON.stringify((e as unknown as { snapshot: { value: unknown } }).snapshot.value)),
    );
    // No sandbox: nothing to lock, rewrite or commit, so those steps pass without a state of their
    // own; and the policy answered for these tools without asking anyone, so authorizing did too.
    expect([...visited]).toEqual(['"invoking"', '"done"']);
  });

  it('refuses to work after shutdown, with a clear error', async () => {
    const rt = await runtime();
    await rt.shutdown();
    await expect(rt.activate('assistant', { tenant: 'acme' })).rejects.toMatchObject({ code: 'RUNTIME_SHUT_DOWN' });
  });

  it('starts the servers of an actor concurrently: all ten are STARTING before the first is RUNNING', async () => {
    const servers = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [
        `slow${i}`,
        { command: process.execPath, args: [fixtureServerPath(), ...fixtureArgs({ startupDelayMs: 300 })], env: pidLog },
      ]),
    );
    const rt = await createRuntime({
      config: { servers, skills: { all: { mcp_servers: Object.keys(servers) } }, actors: { wide: { skills: ['all'] } } },
    });
    runtimes.push(rt);
    const order: string[] = [];
    rt.events$.subscribe((e) => {
      if (e.type === 'server.state' && (e.state === 'STARTING' || e.state === 'RUNNING')) order.push(`${e.state} ${e.server}`);
    });
    const actor = await rt.activate('wide', { tenant: 'acme' });
    expect(actor.activation?.servers).toHaveLength(10);
    const firstRunning = order.findIndex((entry) => entry.startsWith('RUNNING'));
    expect(order.slice(0, firstRunning).filter((entry) => entry.startsWith('STARTING'))).toHaveLength(10);
  });

  it('adds built-in and custom tools a host gives, by full name, to the skills that name them', async () => {
    const inference = { toolName: 'now', overrides: [{ at: 'builtin', values: { readOnly: true } }] };
    const inferred = inferCapabilities(inference);
    const now: ToolDescriptor = {
      name: 'builtin/now',
      namespace: 'builtin',
      toolName: 'now',
      description: 'The time',
      inputSchema: { type: 'object' },
      outputSchema: undefined,
      annotations: undefined,
      source: 'builtin',
      sourceMetadata: {},
      capabilities: inferred.capability,
      provenance: inferred.provenance,
      checkpointable: true,
      inference,
    };
    const handler: ToolHandler = () =>
      Promise.resolve({
        success: true,
        content: [{ type: 'text', text: 'noon' }],
        data: undefined,
        error: undefined,
        errorCode: undefined,
        durationMs: 0,
      });
    const rt = await createRuntime({
      config: { skills: { clock: { tools: ['builtin/now'] } }, actors: { timekeeper: { skills: ['clock'] } } },
      tools: [{ descriptor: now, handler }],
    });
    runtimes.push(rt);
    const actor = await rt.activate('timekeeper', { tenant: 'acme' });
    expect(actor.tools().map((t) => `${t.name} ${t.category}`)).toEqual(['builtin/now read']);
    expect(text(await actor.call('builtin/now'))).toBe('noon');
    expect((await actor.call('builtin/later')).error?.code).toBe('NOT_FOUND');
    expect((await actor.call('builtin/nwo')).error?.message).toContain('did you mean "builtin/now"?');
    await expect(rt.activate('timekeper', { tenant: 'acme' })).rejects.toThrow('did you mean "timekeeper"?');
  });

  it('deactivates once, however often and however concurrently deactivate() is called', async () => {
    const rt = await runtime();
    const actor = await rt.activate('assistant', { tenant: 'acme' });
    const pids = rt.status().servers.map((server) => server.pid!);
    await Promise.all([actor.deactivate(), actor.deactivate()]);
    await actor.deactivate();
    expect(rt.status()).toEqual({ servers: [], actors: [] });
    await expectAllGone(pids, pids);
    const after = await actor.call('fixture/echo', { message: 'x' });
    expect(after.error?.code).toBe('NOT_CONNECTED');
  });

  it('waits for calls in flight before deactivating', async () => {
    const rt = await runtime();
    const actor = await rt.activate('assistant', { tenant: 'acme' });
    const slow = actor.call('fixture/sleep', { ms: 300 });
    const deactivated = actor.deactivate();
    expect((await slow).status).toBe('committed');
    await deactivated;
  });

  it('settles an activation that a shutdown overtakes, and leaves no process', async () => {
    const rt = await runtime();
    const pids: number[] = [];
    rt.events$.subscribe((e) => {
      if (e.type === 'server.state' && e.pid !== undefined) pids.push(e.pid);
    });
    const activation = rt.activate('assistant', { tenant: 'acme' });
    const shutdown = rt.shutdown();
    await expect(activation).rejects.toMatchObject({ code: 'RUNTIME_SHUT_DOWN' });
    await shutdown;
    await expectAllGone(pids, pids);
  });

  it('reports every call on events$, also those that never reach a tool', async () => {
    const rt = await runtime();
    const ended: RuntimeEvent[] = [];
    rt.events$.subscribe((e) => e.type === 'call.ended' && ended.push(e));
    const actor = await rt.activate('assistant', { tenant: 'acme' });
    await actor.call('fixture/no_such_tool');
    expect(ended).toEqual([
      expect.objectContaining({ tool: 'fixture/no_such_tool', status: 'rejected', errorCode: 'NOT_FOUND', category: undefined }),
    ]);
  });
});
