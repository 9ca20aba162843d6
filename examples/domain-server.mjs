// An in-process domain server: called through the runtime as a function, then served over
// streamable HTTP as a real MCP server whose tenant comes from the caller's token.
import { createRuntime, defineServer, defineTool, McpClient, serveOverHttp } from 'mcp-actors';

const shifts = { acme: [{ date: '2026-01-05', who: 'ana' }], globex: [{ date: '2026-01-05', who: 'bo' }] };

export const roster = defineServer({
  name: 'roster',
  tools: [
    defineTool({
      name: 'roster_list_shifts',
      domain: 'roster',
      category: 'read',
      description: 'Shifts from a date on',
      input: { type: 'object', properties: { date_from: { type: 'string', format: 'date' } }, required: ['date_from'] },
      call: (params, ctx) => ({ shifts: (shifts[ctx.tenant] ?? []).filter((s) => s.date >= params.date_from) }), // tenant from ctx, never from params
    }),
  ],
});

// In-process: skills name the domain server like an MCP server.
const runtime = await createRuntime({
  config: { skills: { rota: { mcp_servers: ['roster'] } }, actors: { planner: { skills: ['rota'] } } },
  domainServers: [roster],
});
try {
  const planner = await runtime.activate('planner', { tenant: 'acme' });
  const outcome = await planner.call('roster/roster_list_shifts', { date_from: '2026-01-01' });
  console.log(`in-process: ${outcome.status}`, JSON.stringify(outcome.result?.data));
} finally {
  await runtime.shutdown();
}

// Served: each bearer token names a tenant; a session keeps its tenant for life.
const tokens = { 'token-of-globex': 'globex' };
const served = await serveOverHttp(roster, {
  authenticate: (request) => {
    const tenant = tokens[request.headers.authorization?.replace(/^Bearer /, '') ?? ''];
    return tenant ? { tenant } : undefined; // undefined: 401
  },
});
const client = new McpClient({ name: 'roster', url: served.url, headers: { Authorization: 'Bearer token-of-globex' } });
try {
  const result = await client.callTool('roster_list_shifts', { date_from: '2026-01-01' });
  console.log('over HTTP:', JSON.stringify(result.structuredContent));
} finally {
  await client.stop();
  await served.close();
}
