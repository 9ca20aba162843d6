/**
 * In-process calls through both runners of the step list (the fast path, and the machine as an
 * inspected call runs): the deadline and the cancel still reach the tool, the tool's AbortSignal
 * exists only if it reads ctx.signal, and its arguments are validated once.
 */
import { describe, expect, it } from 'vitest';
import { defineServer } from '../../../src/domain/define-server.js';
import { defineTool } from '../../../src/domain/define-tool.js';
import { registerInProcessServer } from '../../../src/domain/in-process-server.js';
import { VALIDATED_AGAINST } from '../../../src/registry/tool-descriptor.js';
import { ToolRegistry } from '../../../src/registry/tool-registry.js';
import { runToolCall } from '../../../src/tool-call/run-tool-call.js';

const input = { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] } as const;

function registry(seen: { signals: number; aborted: number }) {
  const waits = defineTool({
    name: 'wait',
    domain: 'test',
    category: 'read',
    description: 'waits ms, or until its signal aborts',
    input,
    call: (args: { ms: number }, ctx) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve({ waited: args.ms }), args.ms);
        seen.signals += 1;
        ctx.signal.addEventListener('abort', () => {
          seen.aborted += 1;
          clearTimeout(timer);
          resolve({ waited: -1 });
        });
      }),
  });
  const quick = defineTool({
    name: 'quick',
    domain: 'test',
    category: 'read',
    description: 'answers at once',
    input,
    call: (args: { ms: number }) => ({ ms: args.ms }),
  });
  const tools = new ToolRegistry();
  registerInProcessServer(tools, defineServer({ name: 't', tools: [waits, quick] }), { tenant: 'acme' });
  return tools;
}

const runners = [
  ['the fast path', {}],
  ['the machine', { inspect: () => undefined }],
] as const;

describe.each(runners)('an in-process call on %s', (_name, options) => {
  it('times out a tool that outlasts timeoutMs and aborts its signal', async () => {
    const seen = { signals: 0, aborted: 0 };
    const outcome = await runToolCall({ registry: registry(seen) }, { tool: 't/wait', args: { ms: 5_000 }, timeoutMs: 50 }, options);
    expect(outcome.status).toBe('failed');
    expect(outcome.error?.code).toBe('REQUEST_TIMEOUT');
    expect(seen.aborted).toBe(1);
  });

  it('cancels a call in flight: the tool sees its signal abort, the outcome says CANCELLED', async () => {
    const seen = { signals: 0, aborted: 0 };
    const caller = new AbortController();
    setTimeout(() => caller.abort(new Error('user pressed stop')), 30);
    const outcome = await runToolCall(
      { registry: registry(seen) },
      { tool: 't/wait', args: { ms: 5_000 }, signal: caller.signal },
      options,
    );
    expect(outcome.status).toBe('failed');
    expect(outcome.error?.code).toBe('CANCELLED');
    expect(seen.aborted).toBe(1);
  });

  it('answers a tool that finishes in time', async () => {
    const seen = { signals: 0, aborted: 0 };
    const outcome = await runToolCall({ registry: registry(seen) }, { tool: 't/wait', args: { ms: 5 }, timeoutMs: 5_000 }, options);
    expect(outcome.status).toBe('committed');
    expect(outcome.result?.data).toEqual({ waited: 5 });
    expect(seen.aborted).toBe(0);
  });

  it('makes no AbortSignal for a tool that never reads ctx.signal', async () => {
    const tools = registry({ signals: 0, aborted: 0 });
    const Original = globalThis.AbortController;
    let made = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        made += 1;
      }
    };
    try {
      const outcome = await runToolCall({ registry: tools }, { tool: 't/quick', args: { ms: 1 } }, options);
      expect(outcome.status).toBe('committed');
    } finally {
      globalThis.AbortController = Original;
    }
    expect(made).toBe(0);
  });

  it('rejects bad arguments on the call path, before the tool', async () => {
    const outcome = await runToolCall(
      { registry: registry({ signals: 0, aborted: 0 }) },
      { tool: 't/quick', args: { ms: 'soon' } },
      options,
    );
    expect(outcome.status).toBe('rejected');
    expect(outcome.error?.code).toBe('INVALID_ARGUMENT');
  });
});

describe('an in-process handler', () => {
  it('does not validate again arguments the call path validated against its schema, and does otherwise', async () => {
    const tools = registry({ signals: 0, aborted: 0 });
    const handler = tools.handlerOf('t/quick');
    const schema = tools.get('t/quick')!.inputSchema;
    // Arguments that break the schema, marked validated: the handler takes the call path's word.
    expect((await handler({ ms: 'x' }, { [VALIDATED_AGAINST]: schema })).success).toBe(true);
    expect((await handler({ ms: 'x' }, {})).errorCode).toBe('VALIDATION');
    expect((await handler({ ms: 'x' }, { [VALIDATED_AGAINST]: { type: 'object' } })).errorCode).toBe('VALIDATION');
  });
});
