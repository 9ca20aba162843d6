#!/usr/bin/env node
/**
 * A host for test/integration/inspector-host-exit.test.ts: it embeds the built runtime with the
 * inspector on, activates an actor with one fixture server, makes a call, prints one JSON line
 * `{ "url", "wsUrl" }`, waits for a line on stdin, calls `runtime.shutdown()` and then does
 * nothing more: the process must exit by itself (no process.exit anywhere).
 * Plain JavaScript on purpose: it is spawned with Node 20, which cannot run TypeScript.
 */
import { createRuntime } from '../../dist/index.js';
import { fixtureServerPath } from '../../dist/testing/index.js';

const pidLog = process.env.MCP_ACTORS_PID_LOG ? { MCP_ACTORS_PID_LOG: process.env.MCP_ACTORS_PID_LOG } : {};
const runtime = await createRuntime({
  config: {
    servers: { files: { command: process.execPath, args: [fixtureServerPath()], env: pidLog } },
    skills: { work: { mcp_servers: ['files'] } },
    actors: { worker: { skills: ['work'], permissions: { execute: 'allow' } } },
  },
  inspect: { port: 0, print: (line) => process.stderr.write(`${line}\n`) },
});
const worker = await runtime.activate('worker', { tenant: 'acme' });
const outcome = await worker.call('files/echo', { message: 'hi' });
if (outcome.status !== 'committed') {
  process.stderr.write(`inspector-host: the call failed: ${outcome.error?.message}\n`);
  process.exitCode = 4;
}
process.stdout.write(`${JSON.stringify({ url: runtime.inspector.url, wsUrl: runtime.inspector.wsUrl })}\n`);
await new Promise((resolve) => process.stdin.once('data', resolve));
process.stdin.pause();
await runtime.shutdown();
process.stderr.write('inspector-host: shut down\n');
