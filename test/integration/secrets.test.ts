/**
 * Nothing secret leaves the runtime: a server's `env` value, a header value, a `${VAR}` substituted
 * into args, and an argument the host marks secret never appear in any byte of status(), events$,
 * activation reports or call errors — even when the servers echo them on stderr and in their answers.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import type { RuntimeEvent } from '../../src/runtime/runtime-events.js';
import { fixtureServerPath } from '../../src/testing/fixture.js';
import { allBytes } from '../support/all-bytes.js';

const secret = (label: string): string => `${label}-${randomBytes(12).toString('hex')}`;
const TOKEN = secret('token');
const HEADER = secret('header');
const SUBSTITUTED = secret('substituted');
const ARGUMENT = secret('argument');
const SECRETS = [TOKEN, HEADER, SUBSTITUTED, ARGUMENT];

/** An HTTP "MCP server" that refuses every request and quotes the Authorization header it got. */
let echoServer: Server;
let echoUrl: string;
beforeAll(async () => {
  echoServer = createServer((req, res) => {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(`refused, you sent ${String(req.headers.authorization)}`);
  });
  await new Promise<void>((resolve) => echoServer.listen(0, '127.0.0.1', resolve));
  echoUrl = `http://127.0.0.1:${(echoServer.address() as AddressInfo).port}/mcp`;
});
afterAll(() => new Promise<void>((resolve) => echoServer.close(() => resolve())));

const pidLog = process.env.MCP_ACTORS_PID_LOG ? { MCP_ACTORS_PID_LOG: process.env.MCP_ACTORS_PID_LOG } : {};

export function secretConfig(url: string) {
  return {
    servers: {
      files: { command: process.execPath, args: [fixtureServerPath(), '--stderr-lines=1'], env: { ...pidLog, TOKEN } },
      // Prints its token and its substituted argument on stderr, then exits: the start error quotes both.
      leaky: {
        command: '/bin/sh',
        args: ['-c', 'echo "token=$TOKEN arg=$1" >&2; exit 3', 'sh', '--key=${SUBSTITUTED_KEY}'],
        env: { TOKEN },
        max_restarts: 1,
        backoff: { initial_ms: 10 },
      },
      remote: { url, headers: { Authorization: `Bearer ${HEADER}` }, max_restarts: 0, start_timeout_ms: 5_000 },
    },
    skills: { work: { mcp_servers: ['files', 'leaky', 'remote'] } },
    actors: { worker: { skills: ['work'], permissions: { execute: 'allow' } } },
  };
}

describe('secrets', () => {
  it('never appear in status(), events$, activation reports or call errors', async () => {
    const runtime = await createRuntime({
      config: secretConfig(echoUrl),
      env: { ...process.env, SUBSTITUTED_KEY: SUBSTITUTED },
      redactArgument: ({ name }) => name === 'message',
      callTimeoutMs: 10_000,
    });
    const events: RuntimeEvent[] = [];
    runtime.events$.subscribe((event) => events.push(event));
    const seen: unknown[] = [];
    try {
      const worker = await runtime.activate('worker', { tenant: 'acme' });
      seen.push(worker.activation);
      expect(worker.activation?.unavailable.map((u) => u.server).sort()).toEqual(['leaky', 'remote']);
      // The leaky server's start error did quote its stderr: the redactor is what keeps it out.
      expect(allBytes(worker.activation)).toContain('[redacted]');

      const failed = await worker.call('files/fail', { message: `bad ${ARGUMENT}` });
      expect(failed.status).toBe('failed');
      seen.push(failed.error);
      const echoed = await worker.call('files/stderr', { line: `token is ${TOKEN}` });
      seen.push(echoed.error, runtime.status());
      const unknown = await worker.call('files/nope', { message: ARGUMENT });
      seen.push(unknown.error);
      seen.push(runtime.status());
      await expect(runtime.activate('nobody', { tenant: 'acme' })).rejects.toThrow();
    } finally {
      await runtime.shutdown();
    }
    seen.push(events);
    const bytes = allBytes(seen);
    expect(events.some((e) => e.type === 'server.restarted' || e.type === 'server.state')).toBe(true);
    for (const value of SECRETS) expect(bytes).not.toContain(value);
  });
});
