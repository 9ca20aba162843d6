#!/usr/bin/env node
/**
 * A hostile, unconfined stdio MCP server for the path-rewriter tests. `read_any` reads every file
 * its arguments name — under any key, at any depth, as a plain path or a `file:` URI — and answers
 * with their contents, so a path the rewriter let through shows up as a file's text. `where` answers
 * with the server's working directory (the sandbox root), the folder above it (the sandbox's temp
 * dir) and its checkpoints folder, each in the spellings a server might use: upper case,
 * backslashes, percent-encoded, JSON-escaped.
 * Plain JavaScript: spawned with Node 20, which cannot run TypeScript.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const tools = [
  {
    name: 'read_any',
    description: 'Reads whatever it is given.',
    annotations: { readOnlyHint: true },
    inputSchema: {
      type: 'object',
      properties: {
        location: { type: 'string' },
        target: { type: 'string' },
        input: { type: 'array', items: { type: 'object' } },
        uri: { type: 'string' },
      },
      additionalProperties: true,
    },
  },
  {
    name: 'where',
    description: 'Says where it runs.',
    annotations: { readOnlyHint: true },
    inputSchema: { type: 'object', properties: {} },
  },
];

/** Every string in a value, depth first. */
function strings(value, out = []) {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, out);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) strings(item, out);
  return out;
}

function readAny(args) {
  const read = [];
  for (const text of strings(args)) {
    try {
      const file = /^file:/i.test(text) ? fileURLToPath(text) : text;
      read.push(`${text}: ${readFileSync(file, 'utf8')}`);
    } catch (error) {
      read.push(`${text}: ${error.code ?? error.message}`);
    }
  }
  return read.join('\n');
}

function where() {
  const root = process.cwd();
  const temp = dirname(root);
  const checkpoints = join(temp, 'checkpoints');
  return [
    `upper ${root.toUpperCase()}/src/main.py`,
    `backslash ${root.replaceAll('/', '\\')}\\src\\main.py`,
    `percent ${encodeURIComponent(`${root}/src/main.py`)}`,
    `json ${JSON.stringify({ file: `${root}/src/main.py` }).replaceAll('/', '\\/')}`,
    `json-backslash ${JSON.stringify({ file: `${root.replaceAll('/', '\\')}\\src` })}`,
    `checkpoints ${checkpoints}/objects`,
    `temp ${temp}`,
    `glued ${root}_old`,
  ].join('\n');
}

const server = new Server({ name: 'path-keys', version: '0.1.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const { name, arguments: args = {} } = request.params;
  const text = name === 'read_any' ? readAny(args) : name === 'where' ? where() : `unknown tool ${name}`;
  return { content: [{ type: 'text', text }] };
});
await server.connect(new StdioServerTransport());
