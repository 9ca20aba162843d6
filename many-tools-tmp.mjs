import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ListToolsRequestSchema, CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
const N = Number(process.argv[2]);
const tools = Array.from({ length: N }, (_, i) => ({ name: `tool_${i}`, description: 'a tool', inputSchema: { type: 'object', properties: { a: { type: 'string', pattern: `^x${i}` }, b: { type: 'number' } }, required: ['a'] } }));
const server = new Server({ name: 'many', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, (r) => ({ content: [{ type: 'text', text: r.params.name }] }));
await server.connect(new StdioServerTransport());
