#!/usr/bin/env node
/**
 * The MCP conformance suite's test tools (server scenarios of @modelcontextprotocol/conformance
 * 0.1.16: tools-call-*, json-schema-2020-12, elicitation-sep1034/1330, server-sse-*) written as a
 * domain server with defineServer/defineTool, served by serveOverHttp in single-tenant mode.
 *
 * Imports the built package (run `npm run build` first). Prints the startup line on stderr (it
 * holds the URL); stops on SIGTERM/SIGINT or the end of stdin.
 *
 *   node test/external/conformance-server.mjs [--port N]
 */
import { defineServer, defineTool, serveOverHttp, toolContent } from '../../dist/index.js';

// 1x1 red PNG and a minimal WAV, as the suite's own reference server uses.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
const NO_ARGUMENTS = { type: 'object', properties: {} };
const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

const tool = (name, description, call, input = NO_ARGUMENTS) =>
  defineTool({ name, domain: 'conformance', category: 'read', description, input, call });

const tools = [
  tool('test_simple_text', 'Returns one text block.', () => 'This is a simple text response for testing.'),
  tool('test_image_content', 'Returns one image block (a 1x1 PNG).', () => toolContent({ type: 'image', data: PNG, mimeType: 'image/png' })),
  tool('test_audio_content', 'Returns one audio block (a minimal WAV).', () => toolContent({ type: 'audio', data: WAV, mimeType: 'audio/wav' })),
  tool('test_embedded_resource', 'Returns an embedded text resource.', () =>
    toolContent({ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }),
  ),
  tool('test_multiple_content_types', 'Returns text, an image and an embedded resource.', () =>
    toolContent([
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
    ]),
  ),
  tool('test_tool_with_logging', 'Logs three messages at info level, 50 ms apart.', async (_args, ctx) => {
    ctx.log('info', 'Tool execution started');
    await sleep(50, ctx.signal);
    ctx.log('info', 'Tool processing data');
    await sleep(50, ctx.signal);
    ctx.log('info', 'Tool execution completed');
    return 'Tool with logging executed successfully';
  }),
  tool('test_error_handling', 'Always fails.', () => {
    throw new Error('This tool intentionally returns an error for testing');
  }),
  tool('test_tool_with_progress', 'Reports progress 0, 50 and 100 of 100, 50 ms apart.', async (_args, ctx) => {
    for (const step of [0, 50, 100]) {
      if (step > 0) await sleep(50, ctx.signal);
      ctx.progress(step, 100, `Completed step ${step} of 100`);
    }
    return 'Progress reported: 0, 50, 100 of 100';
  }),
  tool(
    'test_sampling',
    'Asks the client model to answer a prompt.',
    async ({ prompt }, ctx) => {
      if (ctx.sample === undefined) throw new Error('the client did not declare sampling');
      const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 });
      const text = Array.isArray(answer.content) ? answer.content.find((block) => block.type === 'text')?.text : answer.content?.text;
      return `LLM response: ${text ?? 'no text'}`;
    },
    { type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, required: ['prompt'] },
  ),
  tool(
    'test_elicitation',
    'Asks the user for a username and an email.',
    async ({ message }, ctx) => {
      if (ctx.elicit === undefined) throw new Error('the client did not declare elicitation');
      const answer = await ctx.elicit({
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      });
      return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
    },
    { type: 'object', properties: { message: { type: 'string', description: 'The message to show the user' } }, required: ['message'] },
  ),
  tool('test_elicitation_sep1034_defaults', 'Elicits a form whose every primitive field has a default (SEP-1034).', async (_args, ctx) => {
    if (ctx.elicit === undefined) throw new Error('the client did not declare elicitation');
    const answer = await ctx.elicit({
      message: 'Please review and update the form fields with defaults',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
        required: [],
      },
    });
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }),
  tool('test_elicitation_sep1330_enums', 'Elicits the five enum shapes of SEP-1330.', async (_args, ctx) => {
    if (ctx.elicit === undefined) throw new Error('the client did not declare elicitation');
    const answer = await ctx.elicit({
      message: 'Please choose from the enums',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', description: 'Untitled single-select', enum: ['option1', 'option2', 'option3'] },
          titledSingle: {
            type: 'string',
            description: 'Titled single-select',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: { type: 'string', description: 'Legacy titled enum', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
          untitledMulti: { type: 'array', description: 'Untitled multi-select', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
          titledMulti: {
            type: 'array',
            description: 'Titled multi-select',
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
        required: [],
      },
    });
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }),
  tool(
    'json_schema_2020_12_tool',
    'Tool with JSON Schema 2020-12 features',
    ({ name }) => `Hello${name === undefined ? '' : `, ${name}`}`,
    {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
  ),
  tool('test_reconnection', 'Closes its SSE stream mid-call and answers after the client reconnects (SEP-1699).', async (_args, ctx) => {
    ctx.releaseStream?.();
    await sleep(100, ctx.signal);
    return 'Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.';
  }),
];

const conformance = defineServer({ name: 'mcp-actors-conformance', version: '1.0.0', tools });

const portAt = process.argv.indexOf('--port');
const served = await serveOverHttp(conformance, { tenant: 'conformance', port: portAt > 0 ? Number(process.argv[portAt + 1]) : 0 });
const stop = () => void served.close().finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.stdin.once('end', stop);
process.stdin.resume();
