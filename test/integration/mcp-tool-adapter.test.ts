import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { McpToolAdapter } from '../../src/adapter/mcp-tool-adapter.js';
import { VALIDATED_AGAINST } from '../../src/registry/tool-descriptor.js';
import { ToolRegistry, type ToolRegistryChange } from '../../src/registry/tool-registry.js';
import { fixtureServerConfig, type FixtureOptions } from '../../src/testing/fixture.js';
import { referenceServerConfig } from '../../src/testing/reference-servers.js';
import { waitUntil } from '../support/wait.js';

const adapters: McpToolAdapter[] = [];
function adapter(options: FixtureOptions & { extra?: Record<string, unknown> } = {}, overrides = {}): McpToolAdapter {
  const created = new McpToolAdapter(fixtureServerConfig({ ...options, extra: { backoff: { initialMs: 20 }, ...options.extra } }), {
    overrides,
  });
  adapters.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(adapters.splice(0).map((a) => a.dispose()));
});

describe('McpToolAdapter with the fixture server', () => {
  it('throws NOT_CONNECTED before connect() and after disconnect()', async () => {
    const a = adapter();
    await expect(a.invoke('echo', { message: 'x' })).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
    await expect(a.discoverTools()).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
    await a.connect();
    expect((await a.invoke('echo', { message: 'x' })).success).toBe(true);
    await a.disconnect();
    expect(a.client.state).toBe('STOPPED');
    await expect(a.invoke('echo', { message: 'x' })).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
  });

  it('discovers every tool, filtered by exact names and globs', async () => {
    const a = adapter({ pageSize: 3 });
    await a.connect();
    const all = await a.discoverTools();
    expect(all.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add', 'annotated_delete', 'draft07_tool']));
    expect(all.length).toBeGreaterThan(15);
    const some = await a.discoverTools({ include: ['annotated_*', 'echo'], exclude: ['*_delete'] });
    expect(some.map((t) => t.name).sort()).toEqual(['annotated_read', 'echo']);
  });

  it('returns the answer, with structured content as data', async () => {
    const a = adapter();
    await a.connect();
    const echo = await a.invoke('echo', { message: 'hi' });
    expect(echo).toMatchObject({ success: true, content: [{ type: 'text', text: 'hi' }], error: undefined, errorCode: undefined });
    expect(echo.durationMs).toBeGreaterThan(0);
    const sum = await a.invoke('add', { a: 1, b: 2 });
    expect(sum.data).toEqual({ sum: 3 });
  });

  it('validates arguments before the call and reports the ajv paths', async () => {
    const a = adapter();
    await a.connect();
    const missing = await a.invoke('echo', {});
    expect(missing.errorCode).toBe('VALIDATION');
    expect(missing.error).toContain("must have required property 'message'");
    const wrongType = await a.invoke('add', { a: 'one', b: 2 });
    expect(wrongType.errorCode).toBe('VALIDATION');
    expect(wrongType.violations).toEqual([{ path: '/a', message: 'must be number' }]);
    const notObject = await a.invoke('echo', ['x']);
    expect(notObject.errorCode).toBe('VALIDATION');
  });

  it('validates a draft-07 schema with draft-07 rules', async () => {
    const a = adapter();
    await a.connect();
    expect((await a.invoke('draft07_tool', { item: 'ok' })).success).toBe(true);
    const short = await a.invoke('draft07_tool', { item: 'x' });
    expect(short.errorCode).toBe('VALIDATION');
    expect(short.violations?.[0]?.path).toBe('/item');
  });

  it('reports a schema that does not compile for that tool alone', async () => {
    const a = adapter();
    await a.connect();
    const tools = await a.discoverTools();
    const bad = tools.find((t) => t.name === 'bad_schema')!;
    expect(bad.unusable).toContain('does not compile');
    expect(tools.filter((t) => t.unusable).map((t) => t.name)).toEqual(['bad_schema']);
    const result = await a.invoke('bad_schema', { x: 1 });
    expect(result.errorCode).toBe('VALIDATION');
    expect(result.error).toContain('the call was not sent');
    expect((await a.invoke('echo', { message: 'others still work' })).success).toBe(true);
  });

  it('validates the arguments once: not again when the call path already did against the same schema', async () => {
    const a = adapter();
    await a.connect();
    const echo = (await a.discoverTools()).find((tool) => tool.name === 'echo')!;
    // Called directly (or with another schema), the adapter validates: the call is never sent.
    expect(await a.invoke('echo', { message: 5 })).toMatchObject({ errorCode: 'VALIDATION' });
    expect(await a.invoke('echo', { message: 5 }, { [VALIDATED_AGAINST]: { ...echo.inputSchema } })).toMatchObject({
      errorCode: 'VALIDATION',
    });
    // Told that these arguments were checked against this very schema, it sends them as they are
    // (here the fixture's own check answers, which shows the call went out).
    const sent = await a.invoke('echo', { message: 5 }, { [VALIDATED_AGAINST]: echo.inputSchema });
    expect(sent).toMatchObject({ success: false, errorCode: 'SERVER_ERROR' });
    expect(sent.error).toContain('message must be a string');
  });

  it('checks structured content against the output schema', async () => {
    const a = adapter();
    await a.connect();
    const result = await a.invoke('bad_output');
    expect(result.errorCode).toBe('OUTPUT_VALIDATION');
    expect(result.violations).toEqual([{ path: '/sum', message: 'must be number' }]);
    expect(result.data).toEqual({ sum: 'not a number' });
  });

  it('classifies every tool-level failure without throwing', async () => {
    const a = adapter({ extra: { maxRestarts: 5 } });
    await a.connect();
    expect(await a.invoke('fail', { message: 'disk full' })).toMatchObject({
      success: false,
      errorCode: 'SERVER_ERROR',
      error: 'tool "fail" answered with an error: disk full',
    });
    expect(await a.invoke('nope')).toMatchObject({ errorCode: 'NOT_FOUND', error: 'tool "nope" not found on server "fixture"' });
    expect((await a.invoke('hang', {}, { timeoutMs: 200 })).errorCode).toBe('REQUEST_TIMEOUT');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    expect((await a.invoke('hang', {}, { signal: controller.signal })).errorCode).toBe('CANCELLED');
    expect((await a.invoke('crash', { code: 3 })).errorCode).toBe('CONNECTION_LOST');
    await waitUntil(() => a.client.state === 'RUNNING', 'the restart');
    expect((await a.invoke('echo', { message: 'back' })).success).toBe(true);
  });

  it('copies arguments through a safe parse: __proto__ never reaches anything', async () => {
    const a = adapter();
    await a.connect();
    const args = JSON.parse('{"message":"x","__proto__":{"polluted":true},"nested":{"__proto__":{"polluted":true}}}') as Record<
      string,
      unknown
    >;
    const result = await a.invoke('echo_args', args);
    expect(result.success).toBe(true);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({ message: 'x', nested: {} });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('registers tools with namespace, source, server, capabilities and checkpointable: false', async () => {
    const a = adapter({}, { echo: { readOnly: true } });
    await a.connect();
    const registry = new ToolRegistry();
    const registered = await a.registerTools(registry, { namespace: 'fx', filter: { exclude: ['bad_*'] } });
    expect(registered.length).toBe(registry.list({ namespace: 'fx' }).length);
    const read = registry.get('fx/annotated_read')!;
    expect(read).toMatchObject({ source: 'mcp', sourceMetadata: { server: 'fixture' }, checkpointable: false, toolName: 'annotated_read' });
    expect(read.capabilities.readOnly).toBe(true);
    expect(registry.get('fx/annotated_delete')!.capabilities).toMatchObject({ writes: true, destructive: true });
    expect(registry.get('fx/echo')!.capabilities.readOnly).toBe(true);
    expect(registry.get('fx/echo')!.provenance.readOnly.source).toBe('override');
    expect(registry.get('fx/add')!.inputSchema).toMatchObject({ required: ['a', 'b'] });
    expect(registry.has('fx/bad_schema')).toBe(false);
    const result = await registry.handlerOf('fx/echo')({ message: 'through the registry' }, {});
    expect(result.success).toBe(true);
  });

  it('follows a tool list change: added tools appear, removed ones disappear', async () => {
    const a = adapter();
    await a.connect();
    const registry = new ToolRegistry();
    await a.registerTools(registry, { namespace: 'fx' });
    const changes: ToolRegistryChange[] = [];
    registry.changes$.subscribe((change) => changes.push(change));
    let notified = 0;
    const unsubscribe = a.onToolsChanged(() => (notified += 1));
    await a.invoke('tools_add', { name: 'fresh_tool' });
    await waitUntil(() => registry.has('fx/fresh_tool'), 'the new tool in the registry');
    expect(changes).toContainEqual(expect.objectContaining({ type: 'added', name: 'fx/fresh_tool' }));
    await a.invoke('tools_remove', { name: 'fresh_tool' });
    await waitUntil(() => !registry.has('fx/fresh_tool'), 'the tool to be removed');
    expect(changes).toContainEqual(expect.objectContaining({ type: 'removed', name: 'fx/fresh_tool' }));
    expect(notified).toBe(2);
    unsubscribe();
    await a.invoke('tools_add', { name: 'after_unsubscribe' });
    await waitUntil(() => registry.has('fx/after_unsubscribe'), 'the third change');
    expect(notified).toBe(2);
  });

  it('answers a flood of tool list changes one tools/list at a time', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'adapter-flood-'));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const wire = join(folder, 'wire.json');
    const a = adapter({ listChangedFlood: true, extra: { env: { MCP_ACTORS_WIRE_LOG: wire } } });
    let [changes, refreshes] = [0, 0];
    a.client.toolsChanged$.subscribe(() => (changes += 1));
    a.onToolsChanged(() => (refreshes += 1));
    await a.connect();
    const registry = new ToolRegistry();
    await a.registerTools(registry, { namespace: 'fx' });
    await waitUntil(() => changes >= 3_000, 'three thousand tools/list_changed');
    expect(registry.has('fx/echo')).toBe(true);
    const applied = refreshes;
    await a.disconnect(); // the fixture writes what it received as it exits
    const received = JSON.parse(readFileSync(wire, 'utf8')) as Record<string, number>;
    // Every tools/list asked for was waited for and applied (besides registerTools' own, one
    // perhaps in flight at the disconnect), however many changes came: none was sent beside
    // another to be thrown away. (The flood's answers come late, behind the server's own backlog.)
    expect(received['tools/list']).toBeLessThanOrEqual(applied + 2);
  });

  it('reconnect() clears the cached tool list', async () => {
    const a = adapter();
    await a.connect();
    await a.invoke('tools_add', { name: 'temporary_tool' });
    expect((await a.discoverTools()).map((t) => t.name)).toContain('temporary_tool');
    await a.reconnect();
    expect((await a.discoverTools()).map((t) => t.name)).not.toContain('temporary_tool');
  });

  it('infers capabilities statically, as the reference page shows', () => {
    expect(McpToolAdapter.inferCapabilities('list_issues')).toMatchObject({ readOnly: true, writes: false });
    expect(McpToolAdapter.inferCapabilities('create_issue')).toMatchObject({ readOnly: false, writes: true });
    expect(McpToolAdapter.inferCapabilities('frobnicate')).toMatchObject({ writes: true });
    expect(McpToolAdapter.inferCapabilities('frobnicate', { readOnlyHint: true })).toMatchObject({ readOnly: true });
    expect(McpToolAdapter.inferCapabilities('write_thing', { readOnlyHint: true })).toMatchObject({ writes: true });
    expect(McpToolAdapter.inferCapabilities('frobnicate', { readOnlyHint: true }, { trusted: true })).toMatchObject({ readOnly: true });
  });
});

describe('McpToolAdapter with @modelcontextprotocol/server-everything', () => {
  it('registers its tools under a namespace with their schemas, sources and capabilities', async () => {
    const everything = new McpToolAdapter({ ...referenceServerConfig('everything'), trusted: true });
    adapters.push(everything);
    await everything.connect();
    const registry = new ToolRegistry();
    await everything.registerTools(registry, { namespace: 'ev' });
    const echo = registry.get('ev/echo')!;
    expect(echo).toMatchObject({ source: 'mcp', sourceMetadata: { server: 'everything' }, checkpointable: false });
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    expect(registry.get('ev/get-structured-content')!.outputSchema).toBeDefined();
    expect(registry.get('ev/get-sum')!.capabilities.readOnly).toBe(true);
    expect(registry.list({ source: 'mcp' }).every((tool) => tool.name.startsWith('ev/'))).toBe(true);
    const result = await registry.handlerOf('ev/get-sum')({ a: 2, b: 3 }, {});
    expect(result.success).toBe(true);
    const structured = await everything.invoke('get-structured-content', { location: 'New York' });
    expect(structured.success).toBe(true);
    expect(structured.data).toBeDefined();
    const invalid = await everything.invoke('get-sum', { a: 'two', b: 3 });
    expect(invalid.errorCode).toBe('VALIDATION');
  });
});
