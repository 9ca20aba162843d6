// The call path through the runtime, side by side in one run: an in-process read call (the fast
// path), the same through the tool-call machine, the MCP SDK's own in-memory path, and a direct
// function call. Run with `npm run bench` (builds first).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createRuntime, defineServer, defineTool } from '../dist/index.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const now = () => performance.now();
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const median = (xs) => percentile(xs, 0.5);

const shifts = (tenant, site) => ({ shifts: [`${tenant}:${site ?? 'all'}:morning`] });
const input = { type: 'object', properties: { site: { type: 'string' } } };
const roster = defineServer({
  name: 'roster',
  tools: [
    defineTool({
      name: 'list_shifts',
      domain: 'roster',
      category: 'read',
      description: 'read',
      input,
      call: (p, ctx) => shifts(ctx.tenant, p.site),
    }),
    defineTool({
      name: 'assign_shift',
      domain: 'roster',
      category: 'execute',
      description: 'write',
      input,
      call: (p, ctx) => shifts(ctx.tenant, p.site),
    }),
  ],
});

const runtime = await createRuntime({
  config: { skills: { roster: { mcp_servers: ['roster'] } }, actors: { clerk: { skills: ['roster'], permissions: { execute: 'allow' } } } },
  domainServers: [roster],
});
const clerk = await runtime.activate('clerk', { tenant: 'acme' });

const sdkServer = new Server({ name: 'roster', version: '1' }, { capabilities: { tools: {} } });
sdkServer.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'list_shifts', inputSchema: input }] }));
sdkServer.setRequestHandler(CallToolRequestSchema, (request) => {
  const data = shifts('acme', request.params.arguments?.site);
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
});
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await sdkServer.connect(serverSide);
const sdkClient = new Client({ name: 'bench', version: '1' });
await sdkClient.connect(clientSide);

const args = { site: 'north' };
const paths = {
  'direct function call': async () => shifts('acme', args.site),
  'runtime, in-process read (fast path)': () => clerk.call('roster/list_shifts', args),
  'runtime, in-process execute (tool-call machine)': () => clerk.call('roster/assign_shift', args),
  'MCP SDK Client + InMemoryTransport': () => sdkClient.callTool({ name: 'list_shifts', arguments: args }),
};

async function measure(call) {
  for (let i = 0; i < 2_000; i += 1) await call();
  const samples = new Float64Array(CALLS);
  for (let i = 0; i < CALLS; i += 1) {
    const start = now();
    await call();
    samples[i] = now() - start;
  }
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
}

const check = await clerk.call('roster/list_shifts', args);
if (check.status !== 'committed') throw new Error(`the benchmark call failed: ${check.error?.message}`);

const results = Object.fromEntries(Object.keys(paths).map((name) => [name, { p50: [], p99: [] }]));
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [name, call] of Object.entries(paths)) {
    const { p50, p99 } = await measure(call);
    results[name].p50.push(p50);
    results[name].p99.push(p99);
  }
}
const fast = median(results['runtime, in-process read (fast path)'].p50);
console.log(`\nmcp-actors call-path benchmark — node ${process.version}, ${ROUNDS} rounds × ${CALLS} calls (medians of round p50/p99)\n`);
console.log('| path | p50 | p99 | p50 vs fast path |');
console.log('| --- | --- | --- | --- |');
for (const [name, { p50, p99 }] of Object.entries(results)) {
  const m = median(p50);
  console.log(`| ${name} | ${(m * 1000).toFixed(2)} us | ${(median(p99) * 1000).toFixed(2)} us | ${(m / fast).toFixed(2)} |`);
}
await sdkClient.close();
await runtime.shutdown();
