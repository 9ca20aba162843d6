import { describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/mcp-client.js';
import { fixtureServerConfig, type FixtureOptions } from '../../src/testing/fixture.js';
import { isProcessAlive } from '../../src/process/process-table.js';
import { clientsGoneAfterEach, expectAllGone } from '../support/processes.js';
import { waitUntil } from '../support/wait.js';
import { rejection } from '../support/rejection.js';

const fastRestarts = { backoff: { initialMs: 20, maxMs: 200, factor: 2, jitter: 0 }, shutdownTimeoutMs: 1_000 };
const kept = clientsGoneAfterEach();

function fixture(options: FixtureOptions & { viaShell?: boolean; extra?: Record<string, unknown> } = {}): McpClient {
  const config = fixtureServerConfig({ ...options, extra: { ...fastRestarts, ...options.extra } });
  return kept(new McpClient(config));
}

function text(result: { content: unknown }): string {
  return (result.content as { type: string; text: string }[])[0]!.text;
}

async function pids(client: McpClient): Promise<{ pid: number; ppid: number; grandchildPid: number | null }> {
  return JSON.parse(text(await client.callTool('pids'))) as { pid: number; ppid: number; grandchildPid: number | null };
}

describe('McpClient over real stdio with the fixture server', () => {
  it('performs the handshake, lists tools and calls one', async () => {
    const client = fixture();
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add', 'pids', 'sleep', 'fail']));
    expect(client.state).toBe('RUNNING');
    expect(client.capabilities).toMatchObject({ tools: true, resources: false, prompts: false });
    expect(client.status().serverInfo?.name).toBe('mcp-actors-fixture');
    expect(text(await client.callTool('echo', { message: 'over stdio' }))).toBe('over stdio');
    const sum = await client.callTool('add', { a: 2, b: 3 });
    expect(sum.structuredContent).toEqual({ sum: 5 });
  });

  it('resolves a tool failure as an answer with isError and the text in content[0].text', async () => {
    const client = fixture();
    const result = await client.callTool('fail', { message: 'disk full' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('disk full');
  });

  it('fails the call in flight when the server crashes, restarts it, and the next call succeeds', async () => {
    const client = fixture({ crashAfter: 1 });
    const first = await pids(client);
    const lost = await rejection(client.callTool('echo', { message: 'crash now' }));
    expect(lost.code).toBe('CONNECTION_LOST');
    expect(lost.message).toContain('exited with code 1');
    await waitUntil(() => client.state === 'RUNNING' && client.status().pid !== first.pid, 'the restart');
    expect(client.status().restarts).toBe(1);
    expect(text(await client.callTool('echo', { message: 'back' }))).toBe('back');
    expect(isProcessAlive(first.pid)).toBe(false);
  });

  it('recovers from a SIGKILL of the server while a call hangs, with no process left of the old one', async () => {
    const client = fixture({ viaShell: true, forkGrandchild: true });
    const tree = await pids(client);
    const leader = client.status().pid!;
    expect(tree.ppid).toBe(leader);
    const hanging = rejection(client.callTool('hang'));
    await waitUntil(() => client.status().callsInFlight === 1, 'the call to be in flight');
    process.kill(leader, 'SIGKILL');
    const lost = await hanging;
    expect(lost.code).toBe('CONNECTION_LOST');
    expect(lost.message).toContain('SIGKILL');
    await expectAllGone([leader, tree.pid, tree.grandchildPid!]);
    await waitUntil(() => client.state === 'RUNNING', 'the restart');
    expect(text(await client.callTool('echo', { message: 'alive' }))).toBe('alive');
  });

  it('leaves no process of the server or its children after stop(), through a forking wrapper shell', async () => {
    const client = fixture({ viaShell: true, forkGrandchild: true });
    const tree = await pids(client);
    const leader = client.status().pid!;
    expect([leader, tree.pid, tree.grandchildPid!].every(isProcessAlive)).toBe(true);
    await client.stop();
    expect(client.state).toBe('STOPPED');
    await expectAllGone([leader, tree.pid, tree.grandchildPid!], [leader]);
  });

  it('goes to ERROR after a crash loop, with the stderr of the last attempt in the error', async () => {
    const client = fixture({ exitOnStart: 1, extra: { maxRestarts: 2 } });
    const states: string[] = [];
    client.state$.subscribe((s) => states.push(s));
    const error = await rejection(client.start());
    expect(error.code).toBe('SERVER_IN_ERROR');
    expect(error.details.reason).toBe('SERVER_EXITED');
    expect(error.message).toContain('fixture: exiting on start with code 1');
    expect(client.state).toBe('ERROR');
    expect(client.status().restarts).toBe(2);
    expect(states).toEqual(['STOPPED', 'STARTING', 'ERROR']);
    const later = await rejection(client.callTool('echo', { message: 'x' }));
    expect(later.code).toBe('SERVER_IN_ERROR');
  });

  it('kills a server that hangs in the handshake at startTimeoutMs', async () => {
    const client = fixture({ hangOnInitialize: true, extra: { startTimeoutMs: 400, maxRestarts: 0 } });
    const error = await rejection(client.start());
    expect(error.details.reason).toBe('START_TIMEOUT');
    expect(error.message).toContain('400 ms');
  });

  it('classifies a command that does not exist as SPAWN_FAILED and does not retry it', async () => {
    const client = kept(new McpClient({ name: 'missing', command: '/nonexistent/mcp-server', ...fastRestarts }));
    const error = await rejection(client.callTool('echo', {}));
    expect(error.code).toBe('SERVER_IN_ERROR');
    expect(error.details.reason).toBe('SPAWN_FAILED');
    expect(error.message).toContain('/nonexistent/mcp-server');
    expect(client.status().restarts).toBe(0);
  });

  it('stops an idle server after idleStopMs and starts it again on the next call', async () => {
    const client = fixture({ extra: { idleStopMs: 300 } });
    const first = await pids(client);
    await waitUntil(() => client.state === 'STOPPED', 'the idle stop');
    await expectAllGone([first.pid]);
    const second = await pids(client);
    expect(second.pid).not.toBe(first.pid);
    expect(client.status().restarts).toBe(0);
  });

  it('keeps a server with a call in flight running past idleStopMs', async () => {
    const client = fixture({ extra: { idleStopMs: 200 } });
    await client.start();
    const states: string[] = [];
    client.state$.subscribe((s) => states.push(s));
    expect(text(await client.callTool('sleep', { ms: 700 }))).toBe('slept 700');
    expect(states).toEqual(['RUNNING']);
  });

  it('times out a slow call, sends MCP cancellation, and the server goes on answering', async () => {
    const client = fixture();
    await client.start();
    const error = await rejection(client.callTool('sleep', { ms: 30_000 }, { timeoutMs: 300 }));
    expect(error.code).toBe('REQUEST_TIMEOUT');
    await waitUntil(
      () => (client.status().diagnostics?.stderrTail ?? []).includes('fixture: sleep 30000 cancelled'),
      'the cancellation at the server',
    );
    expect(text(await client.callTool('echo', { message: 'still here' }))).toBe('still here');
    expect(client.status().restarts).toBe(0);
  });

  it('cancels a call through its AbortSignal', async () => {
    const client = fixture();
    await client.start();
    const controller = new AbortController();
    const pending = rejection(client.callTool('sleep', { ms: 30_000 }, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 100);
    expect((await pending).code).toBe('CANCELLED');
    await waitUntil(
      () => (client.status().diagnostics?.stderrTail ?? []).includes('fixture: sleep 30000 cancelled'),
      'the cancellation at the server',
    );
  });

  it('counts each request in flight once, calls and listings alike, and none once they settle or fail', async () => {
    const client = fixture();
    await client.start();
    const controller = new AbortController();
    const cancelled = rejection(client.callTool('sleep', { ms: 30_000 }, { signal: controller.signal }));
    const timedOut = rejection(client.callTool('sleep', { ms: 30_000 }, { timeoutMs: 1_500 }));
    const slept = client.callTool('sleep', { ms: 600 });
    const listed = client.listTools();
    await waitUntil(() => client.status().callsInFlight >= 3, 'the calls to be in flight');
    expect(client.status().callsInFlight).toBeLessThanOrEqual(4);
    controller.abort();
    expect((await cancelled).code).toBe('CANCELLED');
    expect(text(await slept)).toBe('slept 600');
    expect((await listed).length).toBeGreaterThan(0);
    expect((await timedOut).code).toBe('REQUEST_TIMEOUT');
    expect(client.status().callsInFlight).toBe(0);
  });

  it('counts non-JSON lines on stdout without failing the connection', async () => {
    const client = fixture({ garbageStdout: true });
    expect(text(await client.callTool('echo', { message: 'a' }))).toBe('a');
    expect(text(await client.callTool('echo', { message: 'b' }))).toBe('b');
    const diagnostics = client.status().diagnostics!;
    expect(diagnostics.nonJsonLines).toBeGreaterThanOrEqual(3);
    expect(diagnostics.lastNonJsonLine).toContain('not json');
  });

  it('closes the connection on a message over maxMessageBytes instead of buffering it, then restarts', async () => {
    const client = fixture({ extra: { maxMessageBytes: 64 * 1024 } });
    const first = await pids(client);
    const error = await rejection(client.callTool('big', { bytes: 1_000_000 }));
    expect(error.code).toBe('CONNECTION_LOST');
    expect(error.message).toMatch(/over 65536 bytes/);
    await waitUntil(() => client.state === 'RUNNING' && client.status().pid !== first.pid, 'the restart');
    expect(text(await client.callTool('big', { bytes: 1_000 }))).toHaveLength(1_000);
  });

  it('stops a server that ignores SIGTERM and stdin closing by SIGKILL within the shutdown budget', async () => {
    const client = fixture({ ignoreSigterm: true, extra: { shutdownTimeoutMs: 400 } });
    const { pid } = await pids(client);
    await client.stop();
    await expectAllGone([pid], [client.status().pid ?? pid]);
  });

  it('does not restart a transient server after it exits with code 0, and starts it lazily later', async () => {
    const client = fixture({ exitZeroAfter: 1, extra: { restart: 'transient' } });
    const first = await pids(client);
    await rejection(client.callTool('echo', { message: 'bye' }));
    await waitUntil(() => client.state === 'STOPPED', 'the normal exit');
    expect(client.status().restarts).toBe(0);
    const second = await pids(client);
    expect(second.pid).not.toBe(first.pid);
  });

  it('restarts a server whose pings go unanswered', async () => {
    const client = fixture({ pingHang: true, extra: { pingIntervalMs: 200, maxRestarts: 5 } });
    const first = await pids(client);
    await waitUntil(() => client.status().restarts >= 1, 'a ping-triggered restart');
    expect(client.status().lastError?.code).toBe('PING_TIMEOUT');
    await expectAllGone([first.pid]);
  });

  it('reconnect() starts a fresh process and refetches the tool list', async () => {
    const client = fixture();
    const tools = await client.listTools();
    expect(await client.listTools()).toBe(tools);
    const first = await pids(client);
    await client.reconnect();
    const second = await pids(client);
    expect(second.pid).not.toBe(first.pid);
    const again = await client.listTools();
    expect(again).not.toBe(tools);
    expect(again.map((t) => t.name)).toEqual(tools.map((t) => t.name));
    await expectAllGone([first.pid]);
  });

  it('drops the cached tool list when the server says the list changed', async () => {
    const client = fixture();
    const before = await client.listTools();
    let changes = 0;
    client.toolsChanged$.subscribe(() => (changes += 1));
    await client.callTool('tools_add', { name: 'brand_new' });
    await waitUntil(() => changes > 0, 'the list_changed notification');
    const after = await client.listTools();
    expect(after.length).toBe(before.length + 1);
    expect(after.map((t) => t.name)).toContain('brand_new');
  });

  it('gives the server only the allowlisted host environment plus its configured env', async () => {
    process.env.MCP_ACTORS_HOST_SECRET = 'do-not-leak';
    try {
      const client = fixture({ extra: { env: { CONFIGURED_VAR: 'yes', MCP_ACTORS_PID_LOG: process.env.MCP_ACTORS_PID_LOG ?? '' } } });
      expect(text(await client.callTool('env', { name: 'MCP_ACTORS_HOST_SECRET' }))).toBe('<unset>');
      expect(text(await client.callTool('env', { name: 'CONFIGURED_VAR' }))).toBe('yes');
      expect(text(await client.callTool('env', { name: 'PATH' }))).toBe(process.env.PATH);
    } finally {
      delete process.env.MCP_ACTORS_HOST_SECRET;
    }
  });
});
