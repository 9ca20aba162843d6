/**
 * @modelcontextprotocol/server-everything in its HTTP modes (streamableHttp, sse), each spawned by
 * the test with its own PORT and reached on 127.0.0.1 only: handshake, tools, calls, progress-free
 * structured results, and a clean stop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/mcp-client.js';
import { referenceServerPath } from '../../src/testing/reference-servers.js';

const children: ChildProcess[] = [];
const clients: McpClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.dispose();
  for (const child of children.splice(0)) {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Spawns server-everything in `mode` on its own port; resolves once it says it listens. */
async function everything(mode: 'streamableHttp' | 'sse'): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [referenceServerPath('everything'), mode], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`server-everything ${mode} did not start: ${seen}`)), 20_000);
    child.stderr.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (new RegExp(`\\b${port}\\b`).test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`server-everything ${mode} exited with ${code}: ${seen}`)));
  });
  return port;
}

describe('server-everything over HTTP', () => {
  it('streamableHttp: handshake, tools and calls', async () => {
    const port = await everything('streamableHttp');
    const mcp = new McpClient({ name: 'everything', url: `http://127.0.0.1:${port}/mcp`, callTimeoutMs: 15_000 });
    clients.push(mcp);
    const names = (await mcp.listTools()).map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    const echo = await mcp.callTool('echo', { message: 'over http' });
    expect(JSON.stringify(echo.content)).toContain('over http');
    const sum = await mcp.callTool('get-sum', { a: 2, b: 3 });
    expect(JSON.stringify(sum.content)).toContain('5');
    expect(mcp.status().serverInfo?.name).toBeTypeOf('string');
  });

  it('sse: handshake, tools and calls', async () => {
    const port = await everything('sse');
    const mcp = new McpClient({ name: 'everything', url: `http://127.0.0.1:${port}/sse`, transport: 'sse', callTimeoutMs: 15_000 });
    clients.push(mcp);
    expect((await mcp.listTools()).map((tool) => tool.name)).toContain('echo');
    expect(JSON.stringify((await mcp.callTool('echo', { message: 'over sse' })).content)).toContain('over sse');
  });
});
