/**
 * `@opentelemetry/api` is an optional peer: a host that has not installed it must run unchanged.
 * A real Node process loads the built package (dist/) with the API made unresolvable — by
 * `require` and by `import` alike, as in a host without it — then creates a runtime, serves a
 * domain server over streamable HTTP on 127.0.0.1 and calls its tool through the runtime (so the
 * client and the served span code both run).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const dist = new URL('../../dist/index.js', import.meta.url).href;
const dir = mkdtempSync(join(tmpdir(), 'mcp-actors-no-otel-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Preloaded: `@opentelemetry/api` cannot be found, whether required or imported. */
const BLOCK = `
const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === '@opentelemetry/api' || request.startsWith('@opentelemetry/api/')) {
    throw Object.assign(new Error("Cannot find module '" + request + "'"), { code: 'MODULE_NOT_FOUND' });
  }
  return resolve.call(this, request, ...rest);
};
Module.register('data:text/javascript,' + encodeURIComponent(\`
export async function resolve(specifier, context, next) {
  if (specifier === '@opentelemetry/api' || specifier.startsWith('@opentelemetry/api/')) {
    throw Object.assign(new Error('Cannot find package ' + specifier), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return next(specifier, context);
}\`));
`;

const HOST = `
import { createRequire } from 'node:module';
import { createRuntime, defineServer, defineTool, serveOverHttp } from ${JSON.stringify(dist)};
let blocked = false;
try { createRequire(import.meta.url)('@opentelemetry/api'); } catch (error) { blocked = error.code === 'MODULE_NOT_FOUND'; }
try { await import('@opentelemetry/api'); blocked = false; } catch (error) { blocked &&= error.code === 'ERR_MODULE_NOT_FOUND'; }
const roster = defineServer({ name: 'roster', tools: [defineTool({ name: 'list_shifts', domain: 'roster', category: 'read', description: 'Lists shifts.', input: { type: 'object', properties: {} }, call: () => ({ shifts: 3 }) })] });
const served = await serveOverHttp(roster, { tenant: 'acme', announce: false, closeTimeoutMs: 200 });
const runtime = await createRuntime({ config: {
  servers: { roster: { url: served.url, transport: 'streamable-http' } },
  skills: { remote: { mcp_servers: ['roster'] }, local: { mcp_servers: ['inproc'] } },
  actors: { planner: { skills: ['remote', 'local'], permissions: { execute: 'allow' } } },
}, domainServers: [defineServer({ name: 'inproc', tools: [defineTool({ name: 'ping', domain: 'inproc', category: 'read', description: 'Pong.', input: { type: 'object', properties: {} }, call: () => ({ pong: true }) })] })] });
const planner = await runtime.activate('planner', { tenant: 'acme' });
const remote = await planner.call('roster/list_shifts', {});
const local = await planner.call('inproc/ping', {});
await runtime.shutdown();
await served.close();
console.log(JSON.stringify({ blocked, remote: remote.status, local: local.status, error: remote.error?.message ?? local.error?.message }));
// Something idle (a keep-alive socket) may hold the loop a few seconds: what was to be shown is shown.
process.exit(0);
`;

describe('without @opentelemetry/api installed', () => {
  it('the runtime, its MCP client and a served domain server work as before', () => {
    writeFileSync(join(dir, 'block-otel.cjs'), BLOCK);
    writeFileSync(join(dir, 'host.mjs'), HOST);
    const out = execFileSync(process.execPath, ['--require', join(dir, 'block-otel.cjs'), pathToFileURL(join(dir, 'host.mjs')).pathname], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    const result = JSON.parse(out.trim().split('\n').at(-1)!) as { blocked: boolean; remote: string; local: string; error?: string };
    expect(result).toEqual({ blocked: true, remote: 'committed', local: 'committed' });
  });
});
