import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isProcessAlive, readProcStat } from '../../src/process/process-table.js';
import { fixtureArgs, fixtureServerConfig, fixtureServerPath, type FixtureOptions } from '../../src/testing/index.js';

// Everything a test starts is recorded here and SIGKILLed (pid, or group when we own it) after it.
const startedPids = new Set<number>();
const startedGroups = new Set<number>();
const clients: Client[] = [];

afterEach(async () => {
  for (const pgid of startedGroups) signal(-pgid);
  for (const pid of startedPids) signal(pid);
  // After the kill, stdout closes and the transport's close() returns at once.
  await Promise.all(clients.splice(0).map((client) => client.close()));
  const all = [...startedPids, ...startedGroups];
  startedPids.clear();
  startedGroups.clear();
  await waitUntil(() => all.every((pid) => !isProcessAlive(pid)), 3_000);
});

function signal(pid: number, name: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

async function waitUntil(predicate: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

type Connected = {
  client: Client;
  transport: StdioClientTransport;
  pid: number;
  stderr: () => string[];
  errors: Error[];
  listChanged: Tool[][];
};

/** Spawns the fixture through the SDK's own stdio transport and connects a Client to it. */
async function connect(
  options: FixtureOptions & { viaShell?: boolean } = {},
  connectTimeoutMs = 5_000,
  env: Record<string, string> = {},
): Promise<Connected> {
  const config = fixtureServerConfig(options);
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    env: { ...config.env, ...env },
    stderr: 'pipe',
  });
  let stderrText = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderrText += chunk.toString('utf8')));
  const listChanged: Tool[][] = [];
  const client = new Client(
    { name: 'fixture-test', version: '0.0.0' },
    {
      listChanged: {
        tools: { debounceMs: 0, onChanged: (_error, tools) => tools && listChanged.push(tools) },
      },
    },
  );
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  clients.push(client);
  const connecting = client.connect(transport, { timeout: connectTimeoutMs });
  // The pid exists once spawned, even if the handshake then fails: record it before awaiting.
  await new Promise((resolve) => setImmediate(resolve));
  if (transport.pid !== null) startedPids.add(transport.pid);
  await connecting;
  const pid = transport.pid;
  if (pid === null) throw new Error('fixture did not start');
  startedPids.add(pid);
  return { client, transport, pid, stderr: () => stderrText.split('\n').filter(Boolean), errors, listChanged };
}

/** Spawns the fixture directly, in its own process group, for exit codes and signals. */
function spawnFixture(
  options: FixtureOptions,
  extraArgs: string[] = [],
  env: Record<string, string> = {},
): ChildProcess & { exited: Promise<[number | null, NodeJS.Signals | null]> } {
  const child = spawn(process.execPath, [fixtureServerPath(), ...fixtureArgs(options), ...extraArgs], {
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  if (child.pid !== undefined) startedGroups.add(child.pid);
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (code, sig) => resolve([code, sig])));
  return Object.assign(child, { exited });
}

/** Writes initialize, initialized and one tools/call (id 2) as raw JSON-RPC lines. */
function writeCall(child: ChildProcess, name: string, args: Record<string, unknown>): void {
  const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } };
  const messages = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: init },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } },
  ];
  child.stdin?.write(messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
}

function collect(stream: NodeJS.ReadableStream | null): () => string {
  let text = '';
  stream?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return () => text;
}

function firstText(result: unknown): string {
  const content = (result as CallToolResult).content[0];
  if (content?.type !== 'text') throw new Error('expected a text block');
  return content.text;
}

describe('the fixture server, well behaved', () => {
  it('completes the handshake and lists every tool with its annotations', async () => {
    const { client } = await connect();
    expect(client.getServerVersion()?.name).toBe('mcp-actors-fixture');
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'echo',
      'add',
      'pids',
      'env',
      'sleep',
      'hang',
      'fail',
      'big',
      'crash',
      'stderr',
      'tools_add',
      'tools_remove',
      'read_slowly',
      'write_slowly',
      'echo_meta',
      'echo_args',
      'write_then_fail',
      'read_sneaky',
      'bad_output',
      'bad_schema',
      'draft07_tool',
      'annotated_read',
      'annotated_delete',
    ]);
    expect(tools.find((tool) => tool.name === 'annotated_read')?.annotations).toEqual({ readOnlyHint: true });
    expect(tools.find((tool) => tool.name === 'annotated_delete')?.annotations).toEqual({ destructiveHint: true });
    await expect(client.ping()).resolves.toEqual({});
  });

  it('echoes, adds with structured content, reads env and answers big payloads', async () => {
    const { client } = await connect();
    expect(firstText(await client.callTool({ name: 'echo', arguments: { message: 'hello' } }))).toBe('hello');
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    expect(firstText(sum)).toBe('42');
    expect(sum.structuredContent).toEqual({ sum: 42 });
    const pidLog = process.env.MCP_ACTORS_PID_LOG ?? '<unset>';
    expect(firstText(await client.callTool({ name: 'env', arguments: { name: 'MCP_ACTORS_PID_LOG' } }))).toBe(pidLog);
    expect(firstText(await client.callTool({ name: 'env', arguments: { name: 'NO_SUCH_VARIABLE' } }))).toBe('<unset>');
    expect(firstText(await client.callTool({ name: 'big', arguments: { bytes: 100_000 } }))).toBe('x'.repeat(100_000));
  });

  it('reports fail, bad arguments and unknown tools as isError results, like McpServer', async () => {
    const { client } = await connect();
    const failed = await client.callTool({ name: 'fail', arguments: { message: 'boom' } });
    expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'boom' }] });
    expect(firstText(await client.callTool({ name: 'fail', arguments: {} }))).toBe('fixture failure');
    const unknown = await client.callTool({ name: 'nope', arguments: {} });
    expect(unknown).toMatchObject({ isError: true, content: [{ text: 'MCP error -32602: Tool nope not found' }] });
    const bad = await client.callTool({ name: 'echo', arguments: { message: 7 } });
    expect(bad.isError).toBe(true);
  });

  it('adds and removes a dynamic tool and tells the client the list changed', async () => {
    const { client, listChanged } = await connect();
    expect(firstText(await client.callTool({ name: 'tools_add', arguments: { name: 'dyn' } }))).toBe('added dyn');
    await waitUntil(() => listChanged.length === 1, 2_000);
    expect(listChanged[0]?.map((tool) => tool.name)).toContain('dyn');
    expect(firstText(await client.callTool({ name: 'dyn', arguments: {} }))).toBe('dyn');
    await client.callTool({ name: 'tools_remove', arguments: { name: 'dyn' } });
    await waitUntil(() => listChanged.length === 2, 2_000);
    expect(listChanged[1]?.map((tool) => tool.name)).not.toContain('dyn');
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('dyn');
  });

  it('stops sleeping when the call is cancelled and stays responsive', async () => {
    const { client } = await connect();
    expect(firstText(await client.callTool({ name: 'sleep', arguments: { ms: 20 } }))).toBe('slept 20');
    const controller = new AbortController();
    const call = client.callTool({ name: 'sleep', arguments: { ms: 60_000 } }, undefined, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(call).rejects.toThrow();
    expect(firstText(await client.callTool({ name: 'echo', arguments: { message: 'still here' } }))).toBe('still here');
  });

  it('writes startup stderr lines and the stderr tool line', async () => {
    const { client, stderr } = await connect({ stderrLines: 3 });
    expect(firstText(await client.callTool({ name: 'stderr', arguments: { line: 'from the tool' } }))).toBe('ok');
    await waitUntil(() => stderr().includes('from the tool'), 2_000);
    expect(stderr()).toEqual(['fixture stderr line 1', 'fixture stderr line 2', 'fixture stderr line 3', 'from the tool']);
  });

  it('exits with code 0 when its stdin closes', async () => {
    const child = spawnFixture({});
    child.stdin?.end();
    expect(await child.exited).toEqual([0, null]);
  });
});

describe('the fixture server, misbehaving', () => {
  it('exits on start with the requested code and says so on stderr', async () => {
    const child = spawnFixture({ exitOnStart: 3 });
    const stderr = collect(child.stderr);
    expect(await child.exited).toEqual([3, null]);
    expect(stderr()).toBe('fixture: exiting on start with code 3\n');
  });

  it('rejects an unknown flag with exit code 2', async () => {
    const child = spawnFixture({}, ['--no-such-flag']);
    const stderr = collect(child.stderr);
    expect(await child.exited).toEqual([2, null]);
    expect(stderr()).toContain('unknown flag --no-such-flag');
  });

  it('writes garbage to stdout that the SDK client reports and skips', async () => {
    const { client, errors } = await connect({ garbageStdout: true });
    expect(firstText(await client.callTool({ name: 'echo', arguments: { message: 'through' } }))).toBe('through');
    expect(errors.length).toBeGreaterThanOrEqual(2);
  });

  it('crashes on the call after crash-after, before answering', async () => {
    const { client, pid } = await connect({ crashAfter: 1, crashMode: 'sigkill' });
    expect(firstText(await client.callTool({ name: 'echo', arguments: { message: 'one' } }))).toBe('one');
    await expect(client.callTool({ name: 'echo', arguments: { message: 'two' } })).rejects.toThrow(/closed/i);
    await waitUntil(() => !isProcessAlive(pid), 2_000);
  });

  it('exits with code 0 on the call after exit-zero-after', async () => {
    const child = spawnFixture({ exitZeroAfter: 0 });
    const stdout = collect(child.stdout);
    writeCall(child, 'echo', { message: 'x' });
    expect(await child.exited).toEqual([0, null]);
    expect(stdout()).not.toContain('"id":2');
  });

  it('exits with code 1 on the call after crash-after in exit mode', async () => {
    const child = spawnFixture({ crashAfter: 0 });
    writeCall(child, 'echo', { message: 'x' });
    expect(await child.exited).toEqual([1, null]);
  });

  it('exits with the code the crash tool was given', async () => {
    const child = spawnFixture({});
    const stdout = collect(child.stdout);
    writeCall(child, 'crash', { code: 5 });
    expect(await child.exited).toEqual([5, null]);
    expect(stdout()).not.toContain('"id":2');
  });

  it('delays its start with startup-delay-ms', async () => {
    const started = Date.now();
    await connect({ startupDelayMs: 300 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('never answers tools/call with hang-on-call but still answers ping and tools/list', async () => {
    const { client } = await connect({ hangOnCall: true });
    await expect(client.callTool({ name: 'echo', arguments: { message: 'x' } }, undefined, { timeout: 200 })).rejects.toThrow(/timed out/i);
    await expect(client.ping()).resolves.toEqual({});
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('never answers ping with ping-hang but still answers calls', async () => {
    const { client } = await connect({ pingHang: true });
    await expect(client.ping({ timeout: 200 })).rejects.toThrow(/timed out/i);
    expect(firstText(await client.callTool({ name: 'echo', arguments: { message: 'x' } }))).toBe('x');
  });

  it('never answers initialize with hang-on-initialize', async () => {
    await expect(connect({ hangOnInitialize: true }, 300)).rejects.toThrow(/timed out/i);
    expect(startedPids.size).toBe(1);
    const [pid] = startedPids;
    expect(isProcessAlive(pid!)).toBe(true);
  });

  it('survives SIGTERM and the end of stdin with ignore-sigterm', async () => {
    const child = spawnFixture({ ignoreSigterm: true, stderrLines: 1 });
    const stderr = collect(child.stderr);
    await waitUntil(() => stderr().length > 0, 2_000); // handlers are installed by now
    child.stdin?.end();
    signal(child.pid!, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(isProcessAlive(child.pid!)).toBe(true);
    signal(child.pid!, 'SIGKILL');
    expect(await child.exited).toEqual([null, 'SIGKILL']);
  });

  it('forks a grandchild in its own process group that outlives it', async () => {
    const { client, pid } = await connect({ forkGrandchild: true });
    const pids = JSON.parse(firstText(await client.callTool({ name: 'pids', arguments: {} }))) as {
      pid: number;
      ppid: number;
      pgid: number;
      grandchildPid: number;
    };
    startedPids.add(pids.grandchildPid);
    expect(pids.pid).toBe(pid);
    expect(pids.ppid).toBe(process.pid);
    expect(readProcStat(pids.grandchildPid)).toMatchObject({ ppid: pid, pgrp: pids.pgid });
    signal(pid, 'SIGKILL');
    await waitUntil(() => !isProcessAlive(pid), 2_000);
    expect(isProcessAlive(pids.grandchildPid)).toBe(true);
  });

  it('runs as a grandchild of a wrapper shell with viaShell', async () => {
    const { client, pid: shellPid } = await connect({ viaShell: true });
    const pids = JSON.parse(firstText(await client.callTool({ name: 'pids', arguments: {} }))) as { pid: number; ppid: number };
    startedPids.add(pids.pid);
    expect(pids.pid).not.toBe(shellPid);
    expect(pids.ppid).toBe(shellPid);
    expect(readProcStat(shellPid)?.ppid).toBe(process.pid);
  });
});

describe('the fixture pid log', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fixture-pid-log-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names its group when it leads one, so the teardown can sweep it', async () => {
    const log = join(dir, 'leader.log');
    const child = spawnFixture({ forkGrandchild: true, stderrLines: 1 }, [], { MCP_ACTORS_PID_LOG: log });
    const stderr = collect(child.stderr);
    await waitUntil(() => stderr().length > 0, 2_000);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`${child.pid} ${child.pid}`);
    expect(lines[1]).toMatch(new RegExp(` ${child.pid}$`));
  });

  it("does not name its spawner's group when it shares it", async () => {
    const log = join(dir, 'member.log');
    const { client, pid } = await connect({ forkGrandchild: true }, 5_000, { MCP_ACTORS_PID_LOG: log });
    const { grandchildPid } = JSON.parse(firstText(await client.callTool({ name: 'pids', arguments: {} }))) as {
      grandchildPid: number;
    };
    startedPids.add(grandchildPid);
    expect(readFileSync(log, 'utf8')).toBe(`${pid} ${pid}\n${grandchildPid} ${grandchildPid}\n`);
  });
});
