import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { McpClient } from '../../src/client/mcp-client.js';
import { McpRegistry } from '../../src/client/mcp-registry.js';
import { isProcessAlive } from '../../src/process/process-table.js';
import { referenceServerConfig } from '../../src/testing/reference-servers.js';
import { clientsGoneAfterEach, expectAllGone } from '../support/processes.js';
import { waitUntil } from '../support/wait.js';

const quick = { backoff: { initialMs: 20, maxMs: 200, factor: 2, jitter: 0 } };
const kept = clientsGoneAfterEach();
const client = (config: ConstructorParameters<typeof McpClient>[0]): McpClient => kept(new McpClient(config));

function text(result: { content: unknown }): string {
  return (result.content as { text: string }[])[0]!.text;
}

describe('McpClient against @modelcontextprotocol/server-everything', () => {
  it('performs the handshake, keeps the capabilities, lists and calls tools', async () => {
    const everything = client({ ...referenceServerConfig('everything'), ...quick });
    const tools = await everything.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-env', 'get-structured-content']));
    expect(everything.capabilities).toMatchObject({ tools: true, resources: true, prompts: true });
    expect(everything.capabilities?.raw).toHaveProperty('logging');
    expect(text(await everything.callTool('echo', { message: 'hello' }))).toBe('Echo: hello');
    expect(text(await everything.callTool('get-sum', { a: 2, b: 40 }))).toContain('42');
  });

  it('restarts the server after it is killed, and the next call succeeds', async () => {
    const everything = client({ ...referenceServerConfig('everything'), ...quick });
    await everything.start();
    const pid = everything.status().pid!;
    process.kill(pid, 'SIGKILL');
    await waitUntil(() => everything.state === 'RUNNING' && everything.status().pid !== pid, 'the restart');
    expect(isProcessAlive(pid)).toBe(false);
    expect(text(await everything.callTool('echo', { message: 'again' }))).toBe('Echo: again');
    expect(everything.status().restarts).toBe(1);
  });

  it('does not pass a host secret to the server, only the allowlist and the configured env', async () => {
    process.env.MCP_ACTORS_HOST_SECRET = 'do-not-leak';
    try {
      const everything = client({ ...referenceServerConfig('everything', { env: { CONFIGURED: 'yes' } }), ...quick });
      const env = JSON.parse(text(await everything.callTool('get-env'))) as Record<string, string>;
      expect(env.MCP_ACTORS_HOST_SECRET).toBeUndefined();
      expect(env.CONFIGURED).toBe('yes');
      const allowed = new Set(['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'CONFIGURED', 'MCP_ACTORS_PID_LOG']);
      expect(Object.keys(env).filter((key) => !allowed.has(key))).toEqual([]);
    } finally {
      delete process.env.MCP_ACTORS_HOST_SECRET;
    }
  });

  it('stops the server with nothing left behind', async () => {
    const everything = client({ ...referenceServerConfig('everything'), ...quick });
    await everything.start();
    const pid = everything.status().pid!;
    await everything.stop();
    expect(everything.state).toBe('STOPPED');
    await expectAllGone([pid], [pid]);
  });
});

describe('McpClient against @modelcontextprotocol/server-memory', () => {
  it('creates and reads back entities', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-actors-memory-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const memory = client({ ...referenceServerConfig('memory', { env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } }), ...quick });
    await memory.callTool('create_entities', {
      entities: [{ name: 'mcp-actors', entityType: 'project', observations: ['supervises MCP servers'] }],
    });
    const graph = text(await memory.callTool('read_graph'));
    expect(graph).toContain('supervises MCP servers');
    await memory.callTool('delete_entities', { entityNames: ['mcp-actors'] });
  });
});

describe('McpRegistry', () => {
  it('refuses a duplicate name and stops every client on dispose, the last registered first', async () => {
    const registry = new McpRegistry();
    const everything = registry.register(new McpClient({ ...referenceServerConfig('everything'), ...quick }));
    expect(() => registry.register(new McpClient({ ...referenceServerConfig('everything'), ...quick }))).toThrow(
      expect.objectContaining({ code: 'DUPLICATE_NAME' }),
    );
    expect(() => registry.require('nope')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(registry.get('everything')).toBe(everything);
    await everything.start();
    const pid = everything.status().pid!;
    await registry[Symbol.asyncDispose]();
    expect(registry.names()).toEqual([]);
    await expectAllGone([pid], [pid]);
  });
});
