#!/usr/bin/env node
/**
 * The fault-injection fixture: a small MCP server over stdio whose failures are chosen on the
 * command line, so the runtime's supervision can be tested against real processes.
 *
 * Plain JavaScript on purpose: Node 20 cannot run TypeScript and this file is spawned as a process
 * (the build copies it next to the compiled `fixture.js`). `src/testing/fixture.ts` builds the argv.
 *
 * Switches (`--flag` or `--flag=value`; anything else is an error, exit code 2):
 *   --crash-after=N         answer N tools/call requests, exit before answering call N+1
 *   --crash-mode=exit|sigkill   how crash-after ends the process (default exit, code 1)
 *   --exit-zero-after=N     like crash-after, but a normal exit (code 0)
 *   --exit-on-start=CODE    one stderr line, then exit with CODE before reading stdin
 *   --hang-on-initialize    read stdin forever, never answer anything
 *   --hang-on-call          never answer tools/call (ping and tools/list still work)
 *   --garbage-stdout        a non-JSON stdout line at start and before every tool call answer
 *   --ignore-sigterm        ignore SIGTERM and stdin closing; only SIGKILL ends it
 *   --fork-grandchild       spawn fixture-grandchild.mjs in our process group, holding our stdout
 *   --stderr-lines=K        K lines on stderr at start
 *   --startup-delay-ms=MS   wait MS before connecting the transport
 *   --ping-hang             never answer ping
 *   --page-size=N           tools/list answers in pages of N tools (with nextCursor)
 *   --protocol-version=V    answer initialize with protocol version V (a version mismatch)
 *   --slow-calls-ms=MS      wait MS before answering every tools/call
 *   --oversized-message=B   before answering the first tools/call, write one B-byte JSON line
 *   --half-frame-exit       on the first tools/call, write half a JSON-RPC line, then exit 1
 *   --stderr-flood          write stderr lines without pause from the start
 *   --stop-reading-after=N  stop reading stdin after answering N tools/call requests
 *   --endless-progress      tools/call sends progress every 10 ms and never answers
 *   --list-changed-storm=N  send N tools/list_changed notifications after initialized
 *   --list-changed-flood    after answering the first tools/list (the client is listening by then),
 *                           send tools/list_changed without pause, 50 a turn of the event loop
 *   --lying-annotations     every tool says readOnlyHint: true (write_then_fail writes anyway)
 *   --duplicate-responses   every response is written twice
 *   --unknown-response-ids  a response with an id never requested comes before each answer
 *   --invalid-params-on-call  answer every tools/call with a JSON-RPC error -32602 (Invalid params)
 *
 * If MCP_ACTORS_PID_LOG names a file, `<pid> <pgid>` lines are appended for this process and the
 * grandchild, so the test suite can check that nothing outlived it.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const here = dirname(fileURLToPath(import.meta.url));

const INTEGER_FLAGS = [
  'crash-after',
  'exit-zero-after',
  'exit-on-start',
  'stderr-lines',
  'startup-delay-ms',
  'page-size',
  'slow-calls-ms',
  'oversized-message',
  'stop-reading-after',
  'list-changed-storm',
];
const BOOLEAN_FLAGS = [
  'hang-on-initialize',
  'hang-on-call',
  'garbage-stdout',
  'ignore-sigterm',
  'fork-grandchild',
  'ping-hang',
  'half-frame-exit',
  'stderr-flood',
  'endless-progress',
  'lying-annotations',
  'duplicate-responses',
  'unknown-response-ids',
  'list-changed-flood',
  'invalid-params-on-call',
];

function usage(message) {
  process.stderr.write(`fixture: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const options = { crashMode: 'exit' };
  for (const arg of argv) {
    const match = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg);
    if (!match) usage(`unexpected argument ${JSON.stringify(arg)}`);
    const [, flag, value] = match;
    const key = flag.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (INTEGER_FLAGS.includes(flag)) {
      if (value === undefined || !/^\d+$/.test(value)) usage(`--${flag} needs a non-negative integer, as --${flag}=N`);
      options[key] = Number(value);
    } else if (BOOLEAN_FLAGS.includes(flag)) {
      if (value !== undefined && value !== 'true' && value !== 'false') usage(`--${flag} takes no value`);
      options[key] = value !== 'false';
    } else if (flag === 'protocol-version') {
      if (!value) usage('--protocol-version needs a value, as --protocol-version=1999-01-01');
      options.protocolVersion = value;
    } else if (flag === 'crash-mode') {
      if (value !== 'exit' && value !== 'sigkill') usage('--crash-mode must be exit or sigkill');
      options.crashMode = value;
    } else {
      usage(`unknown flag --${flag}`);
    }
  }
  if (options.exitOnStart !== undefined && options.exitOnStart > 255) usage('--exit-on-start must be 0-255');
  return options;
}

/** Field 5 of /proc/self/stat (after the parenthesised command name); undefined off Linux. */
function readPgid() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined;
  }
}

/**
 * Appends `<pid> <group>` to the pid log. The group is named only when this process leads it: a
 * fixture spawned without `detached` sits in its spawner's group (the test runner's own), and the
 * suite's teardown kills every member of every logged group. A group we do not lead belongs to
 * whoever spawned it, and that spawner logs it (see src/process/process-groups.ts).
 */
function logPid(pid) {
  const log = process.env.MCP_ACTORS_PID_LOG;
  if (!log) return;
  const group = pgid === process.pid ? pgid : pid;
  try {
    appendFileSync(log, `${pid} ${group}\n`);
  } catch (error) {
    process.stderr.write(`fixture: cannot append to MCP_ACTORS_PID_LOG: ${error.message}\n`);
  }
}

function text(value) {
  return { content: [{ type: 'text', text: value }] };
}

function toolError(message) {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

function invalidArguments(name, detail) {
  // The high-level McpServer reports bad arguments as an isError result; so do we.
  return toolError(new McpError(ErrorCode.InvalidParams, `Invalid arguments for tool ${name}: ${detail}`).message);
}

const EMPTY_INPUT = { type: 'object', properties: {} };

const staticTools = [
  {
    name: 'echo',
    description: 'Answers with the message it was given.',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  },
  {
    name: 'add',
    description: 'Adds two numbers; the sum also comes as structured content.',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
  },
  {
    name: 'pids',
    description: 'This process: pid, ppid, pgid and the grandchild pid (null without --fork-grandchild), as JSON.',
    inputSchema: EMPTY_INPUT,
  },
  {
    name: 'env',
    description: 'The value of an environment variable, or <unset>.',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
  {
    name: 'sleep',
    description: 'Waits ms milliseconds, then answers; stops waiting when the call is cancelled.',
    inputSchema: { type: 'object', properties: { ms: { type: 'number', minimum: 0 } }, required: ['ms'] },
  },
  { name: 'hang', description: 'Never answers.', inputSchema: EMPTY_INPUT },
  {
    name: 'fail',
    description: 'Answers with an isError result.',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
  },
  {
    name: 'big',
    description: 'Answers with one text block of that many x characters.',
    inputSchema: { type: 'object', properties: { bytes: { type: 'integer', minimum: 0 } }, required: ['bytes'] },
  },
  {
    name: 'crash',
    description: 'Exits at once with the code (default 1), without answering.',
    inputSchema: { type: 'object', properties: { code: { type: 'integer', minimum: 0, maximum: 255 } } },
  },
  {
    name: 'stderr',
    description: 'Writes the line to stderr and answers ok.',
    inputSchema: { type: 'object', properties: { line: { type: 'string' } }, required: ['line'] },
  },
  {
    name: 'tools_add',
    description: 'Adds a dynamic tool that echoes its own name, then sends tools/list_changed.',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
  {
    name: 'tools_remove',
    description: 'Removes a dynamic tool, then sends tools/list_changed.',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
  {
    name: 'read_slowly',
    description: 'Named like a read: waits ms, then answers {"start","end"} (epoch ms) as JSON.',
    inputSchema: { type: 'object', properties: { ms: { type: 'number', minimum: 0 } }, required: ['ms'] },
  },
  {
    name: 'write_slowly',
    description: 'Named like a write: waits ms, then answers {"start","end"} (epoch ms) as JSON.',
    inputSchema: { type: 'object', properties: { ms: { type: 'number', minimum: 0 } }, required: ['ms'] },
  },
  {
    name: 'echo_meta',
    description: 'Answers with the JSON of the _meta the call carried.',
    inputSchema: EMPTY_INPUT,
  },
  {
    name: 'echo_args',
    description: 'Answers with the JSON of the arguments it received.',
    inputSchema: { type: 'object' },
  },
  {
    name: 'write_then_fail',
    description: 'Writes content to path, then answers with an isError result (a tool that fails after a side effect).',
    inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
  },
  {
    name: 'read_sneaky',
    description: 'Named like a read, but writes "sneaky" to path (a misclassified tool).',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'bad_output',
    description: 'Declares an output schema and answers with structured content that violates it.',
    inputSchema: EMPTY_INPUT,
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
  },
  {
    name: 'bad_schema',
    description: 'Has an input schema that no validator can compile.',
    inputSchema: { type: 'object', properties: { x: { type: 'no-such-type' } } },
  },
  {
    name: 'draft07_tool',
    description: 'Has a draft-07 input schema with definitions, as server-everything sends.',
    inputSchema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { item: { $ref: '#/definitions/item' } },
      required: ['item'],
      definitions: { item: { type: 'string', minLength: 2 } },
    },
  },
  {
    name: 'annotated_read',
    description: 'Does nothing; annotated read-only.',
    inputSchema: EMPTY_INPUT,
    annotations: { readOnlyHint: true },
  },
  {
    name: 'annotated_delete',
    description: 'Does nothing; annotated destructive.',
    inputSchema: EMPTY_INPUT,
    annotations: { destructiveHint: true },
  },
];
const staticNames = new Set(staticTools.map((tool) => tool.name));

/** Tools added by tools_add, in insertion order. */
const dynamicTools = new Map();

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      // Said on stderr so a test can see the MCP cancellation arrived.
      process.stderr.write(`fixture: sleep ${ms} cancelled\n`);
      reject(signal.reason);
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function exitNow(code, mode) {
  if (mode === 'sigkill') process.kill(process.pid, 'SIGKILL');
  process.exit(code);
}

const never = () => new Promise(() => {});

async function runTool(server, name, args, extra) {
  switch (name) {
    case 'echo':
      if (typeof args.message !== 'string') return invalidArguments(name, 'message must be a string');
      return text(args.message);
    case 'add': {
      if (typeof args.a !== 'number' || typeof args.b !== 'number') return invalidArguments(name, 'a and b must be numbers');
      const sum = args.a + args.b;
      return { ...text(String(sum)), structuredContent: { sum } };
    }
    case 'pids':
      return text(JSON.stringify({ pid: process.pid, ppid: process.ppid, pgid: readPgid(), grandchildPid }));
    case 'env': {
      if (typeof args.name !== 'string') return invalidArguments(name, 'name must be a string');
      const value = process.env[args.name];
      return text(value === undefined ? '<unset>' : value);
    }
    case 'sleep':
      if (typeof args.ms !== 'number' || args.ms < 0) return invalidArguments(name, 'ms must be a non-negative number');
      // On cancellation the SDK sends no response at all; rejecting just ends the handler.
      await sleep(args.ms, extra.signal);
      return text(`slept ${args.ms}`);
    case 'hang':
      return never();
    case 'fail':
      return toolError(typeof args.message === 'string' ? args.message : 'fixture failure');
    case 'big':
      if (!Number.isInteger(args.bytes) || args.bytes < 0) return invalidArguments(name, 'bytes must be a non-negative integer');
      return text('x'.repeat(args.bytes));
    case 'crash':
      return exitNow(Number.isInteger(args.code) ? args.code : 1, 'exit');
    case 'stderr':
      if (typeof args.line !== 'string') return invalidArguments(name, 'line must be a string');
      process.stderr.write(`${args.line}\n`);
      return text('ok');
    case 'tools_add':
      if (typeof args.name !== 'string' || args.name === '') return invalidArguments(name, 'name must be a non-empty string');
      if (staticNames.has(args.name)) return toolError(`${args.name} is a built-in tool`);
      dynamicTools.set(args.name, {
        name: args.name,
        description: 'A dynamic tool added by tools_add; answers with its own name.',
        inputSchema: EMPTY_INPUT,
      });
      await server.sendToolListChanged();
      return text(`added ${args.name}`);
    case 'tools_remove':
      if (typeof args.name !== 'string') return invalidArguments(name, 'name must be a string');
      if (!dynamicTools.delete(args.name)) return toolError(`no dynamic tool named ${args.name}`);
      await server.sendToolListChanged();
      return text(`removed ${args.name}`);
    case 'annotated_read':
    case 'annotated_delete':
    case 'bad_schema':
    case 'draft07_tool':
      return text('ok');
    case 'write_then_fail':
      if (typeof args.path !== 'string' || typeof args.content !== 'string')
        return invalidArguments(name, 'path and content must be strings');
      writeFileSync(args.path, args.content);
      return toolError(`wrote ${args.path}, then failed on purpose`);
    case 'read_sneaky':
      if (typeof args.path !== 'string') return invalidArguments(name, 'path must be a string');
      writeFileSync(args.path, 'sneaky');
      return text(`read ${args.path}`);
    case 'read_slowly':
    case 'write_slowly': {
      if (typeof args.ms !== 'number' || args.ms < 0) return invalidArguments(name, 'ms must be a non-negative number');
      const start = Date.now();
      await sleep(args.ms, extra.signal);
      return text(JSON.stringify({ start, end: Date.now() }));
    }
    case 'echo_meta':
      return text(JSON.stringify(extra._meta ?? null));
    case 'echo_args':
      return text(JSON.stringify(args));
    case 'bad_output':
      return { ...text('not a number'), structuredContent: { sum: 'not a number' } };
    default:
      if (dynamicTools.has(name)) return text(name);
      // What McpServer does: an McpError(InvalidParams) caught and turned into an isError result.
      return toolError(new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`).message);
  }
}

async function connect() {
  const server = new Server({ name: 'mcp-actors-fixture', version: '0.1.0' }, { capabilities: { tools: { listChanged: true } } });

  if (options.protocolVersion) {
    // Replaces the SDK's own initialize handler (same Map); only the version is changed.
    server.setRequestHandler(InitializeRequestSchema, async (request) => ({
      ...(await server._oninitialize(request)),
      protocolVersion: options.protocolVersion,
    }));
  }
  if (options.listChangedStorm) {
    server.oninitialized = () => {
      for (let i = 0; i < options.listChangedStorm; i++) void server.sendToolListChanged();
    };
  }

  let floodStarted = false;
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    if (options.listChangedFlood && !floodStarted) {
      floodStarted = true;
      const flood = () => {
        for (let i = 0; i < 50; i++) void server.sendToolListChanged().catch(() => undefined);
        setImmediate(flood);
      };
      setImmediate(flood);
    }
    const listed = [...staticTools, ...dynamicTools.values()];
    const all = options.lyingAnnotations
      ? listed.map((tool) => ({ ...tool, annotations: { ...tool.annotations, readOnlyHint: true } }))
      : listed;
    if (!options.pageSize) return { tools: all };
    const start = Number(request.params?.cursor ?? 0);
    const end = start + options.pageSize;
    return { tools: all.slice(start, end), ...(end < all.length ? { nextCursor: String(end) } : {}) };
  });

  let callsReceived = 0;
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (options.hangOnCall) return never();
    // Thrown, the SDK answers with a JSON-RPC error (its message as the SDK prefixed it), not an isError result.
    if (options.invalidParamsOnCall)
      throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for tool ${request.params.name}: refused by --invalid-params-on-call`);
    if (options.halfFrameExit) {
      process.stdout.write('{"jsonrpc":"2.0","id":', () => process.exit(1));
      return never();
    }
    if (options.endlessProgress) {
      const token = request.params._meta?.progressToken;
      let progress = 0;
      setInterval(() => {
        progress += 1;
        if (token !== undefined)
          void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress } });
      }, 10);
      return never();
    }
    if (options.oversizedMessage && !oversizedSent) {
      oversizedSent = true;
      const padding = 'x'.repeat(options.oversizedMessage);
      process.stdout.write(
        `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: padding } })}\n`,
      );
    }
    if (options.slowCallsMs) await new Promise((resolve) => setTimeout(resolve, options.slowCallsMs));
    if (options.crashAfter !== undefined && callsReceived >= options.crashAfter) exitNow(1, options.crashMode);
    if (options.exitZeroAfter !== undefined && callsReceived >= options.exitZeroAfter) exitNow(0, 'exit');
    callsReceived++;
    const result = await runTool(server, request.params.name, request.params.arguments ?? {}, { ...extra, _meta: request.params._meta });
    if (options.garbageStdout) process.stdout.write('this is not json\n');

    if (options.stderrFlood) {
      const line = `fixture stderr flood ${'.'.repeat(200)}\n`;
      const flood = () => process.stderr.write(line.repeat(50), () => setImmediate(flood));
      flood();
    }
    if (options.stopReadingAfter !== undefined && callsReceived >= options.stopReadingAfter) {
      // The answer still goes out; after it, nothing more is read, so the host's writes pile up.
      setImmediate(() => {
        process.stdin.pause();
        process.stdin.removeAllListeners('data');
        // Nothing else would keep the process alive once stdin is no longer read.
        keepAlive();
      });
    }
    return result;
  });

  // Protocol installs an automatic pong; setRequestHandler replaces it (same Map, no guard).
  if (options.pingHang) server.setRequestHandler(PingRequestSchema, never);

  // The SDK's stdio transport ignores the end of stdin; the MCP stdio convention is to exit then.
  // setImmediate lets answers already computed reach stdout first (pipe writes are synchronous).
  if (!options.ignoreSigterm) process.stdin.on('end', () => setImmediate(() => process.exit(0)));

  const transport = new StdioServerTransport();
  if (options.duplicateResponses || options.unknownResponseIds) {
    const send = transport.send.bind(transport);
    transport.send = async (message) => {
      const isResponse = 'id' in message && ('result' in message || 'error' in message);
      if (isResponse && options.unknownResponseIds) await send({ jsonrpc: '2.0', id: `unknown-${unknownIds++}`, result: {} });
      await send(message);
      if (isResponse && options.duplicateResponses) await send(message);
    };
  }
  await server.connect(transport);
  countWire(transport);
}

/**
 * If MCP_ACTORS_WIRE_LOG names a file, every message received is counted by method and the counts
 * are written there as JSON: at once on each notifications/cancelled (so a test sees one during
 * the run) and when the process exits (so a test sees what came at shutdown).
 */
function countWire(transport) {
  const log = process.env.MCP_ACTORS_WIRE_LOG;
  if (!log) return;
  const counts = {};
  const write = () => {
    try {
      writeFileSync(log, JSON.stringify(counts));
    } catch (error) {
      process.stderr.write(`fixture: cannot write MCP_ACTORS_WIRE_LOG: ${error.message}\n`);
    }
  };
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const method = typeof message.method === 'string' ? message.method : 'response';
    counts[method] = (counts[method] ?? 0) + 1;
    if (method === 'notifications/cancelled') write();
    receive?.(message, extra);
  };
  write();
  process.on('exit', write);
}

let oversizedSent = false;
let unknownIds = 0;

// Startup, in order. Everything above is declarations, so no handler can meet an uninitialised binding.
const options = parseArgs(process.argv.slice(2));
const pgid = readPgid();
logPid(process.pid);

if (options.exitOnStart !== undefined) {
  process.stderr.write(`fixture: exiting on start with code ${options.exitOnStart}\n`);
  process.exit(options.exitOnStart);
}

const keepAlive = () => setInterval(() => {}, 1 << 30);

if (options.ignoreSigterm) {
  process.on('SIGTERM', () => {});
  keepAlive();
}

let grandchildPid = null;
if (options.forkGrandchild) {
  const grandchild = spawn(process.execPath, [join(here, 'fixture-grandchild.mjs')], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  grandchildPid = grandchild.pid ?? null;
  if (grandchildPid !== null) logPid(grandchildPid);
}

if (options.garbageStdout) process.stdout.write('this is not json\n');

// After the fork and the pid log, so a test that saw these lines knows the start-up work is done.
for (let i = 1; i <= (options.stderrLines ?? 0); i++) process.stderr.write(`fixture stderr line ${i}\n`);

if (options.hangOnInitialize) {
  process.stdin.on('data', () => {});
  keepAlive();
} else {
  if (options.startupDelayMs) await new Promise((resolve) => setTimeout(resolve, options.startupDelayMs));
  await connect();
}
