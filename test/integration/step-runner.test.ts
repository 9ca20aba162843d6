/**
 * The fast path and the tool-call machine run every step through one runner (`StepRunner`) and
 * every wait through one deadline (`withDeadline`): driven through `runToolCall`, a step that runs
 * out of time ends the same way on both paths, and a deadline longer than a timer can hold is no
 * deadline on either — nor over the wire, to the real fixture server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpToolAdapter, runToolCall, ToolRegistry } from '../../src/index.js';
import type { ToolHandler, ToolResult } from '../../src/registry/tool-descriptor.js';
import type { Authorizer } from '../../src/tool-call/tool-call-steps.js';
import type { CallOutcome } from '../../src/tool-call/tool-call-io.js';
import { fixtureServerConfig } from '../../src/testing/index.js';
import { testTool } from '../support/descriptors.js';

const ok: ToolResult = {
  success: true,
  content: [{ type: 'text', text: 'ok' }],
  data: undefined,
  error: undefined,
  errorCode: undefined,
  durationMs: 0,
};
const never = <T>(): Promise<T> => new Promise<T>(() => undefined);
const after = <T>(ms: number, value: T): Promise<T> => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

/** Past setTimeout's range (2^31 - 1 ms): a timer armed with it fires at once. */
const MORE_THAN_A_TIMER_HOLDS = 3_000_000_000;

type Path = 'fast path' | 'machine';

/** One call on the path asked for: the machine when an observer inspects it (it sees the call's events). */
async function call(path: Path, registry: ToolRegistry, tool: string, timeoutMs: number, authorize?: Authorizer): Promise<CallOutcome> {
  let events = 0;
  const outcome = await runToolCall(
    { registry, ...(authorize ? { authorize } : {}) },
    { tool, args: {}, timeoutMs },
    path === 'machine' ? { inspect: () => void (events += 1) } : {},
  );
  expect(events > 0).toBe(path === 'machine');
  return outcome;
}

function registryWith(handler: ToolHandler): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(testTool('read_status', { overrides: { readOnly: true }, inputSchema: { type: 'object' } }), handler);
  return registry;
}

describe('one step runner for the fast path and the machine', () => {
  it('a tool that outlasts timeoutMs ends REQUEST_TIMEOUT on both paths, its signal aborted with the same TimeoutError, after the deadline', async () => {
    const signals: AbortSignal[] = [];
    const registry = registryWith((_args, options) => {
      signals.push(options.signal ?? new AbortController().signal);
      return never();
    });
    const outcomes = await Promise.all((['fast path', 'machine'] as const).map((path) => call(path, registry, 'fx/read_status', 100)));
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ status: 'failed', error: { code: 'REQUEST_TIMEOUT' } });
      expect(outcome.durationMs).toBeGreaterThanOrEqual(95);
    }
    expect(outcomes[0]?.error?.message).toBe(outcomes[1]?.error?.message);
    expect(signals).toHaveLength(2);
    for (const signal of signals) {
      expect(signal.aborted).toBe(true);
      expect(signal.reason).toMatchObject({ name: 'TimeoutError', message: 'the call timed out after 100 ms' });
    }
  });

  it('an approval that never comes ends REQUEST_TIMEOUT (waited for approval) on both paths, and the tool never runs', async () => {
    let ran = 0;
    const registry = registryWith(() => {
      ran += 1;
      return Promise.resolve(ok);
    });
    const outcomes = await Promise.all(
      (['fast path', 'machine'] as const).map((path) => call(path, registry, 'fx/read_status', 100, () => never())),
    );
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ status: 'failed', error: { code: 'REQUEST_TIMEOUT', details: { waitedFor: 'approval' } } });
      expect(outcome.durationMs).toBeGreaterThanOrEqual(95);
    }
    expect(ran).toBe(0);
  });

  it('a timeoutMs longer than a timer can hold is no deadline on either path: the call waits for its approval and its tool', async () => {
    const registry = registryWith(() => after(30, ok));
    for (const path of ['fast path', 'machine'] as const) {
      const outcome = await call(path, registry, 'fx/read_status', MORE_THAN_A_TIMER_HOLDS, () => after(30, { allowed: true }));
      expect(outcome.error).toBeUndefined();
      expect(outcome.status).toBe('committed');
    }
  });

  describe('over the wire, to the real fixture server', () => {
    const adapter = new McpToolAdapter(fixtureServerConfig(), { overrides: { echo: { readOnly: true } } });
    const registry = new ToolRegistry();
    beforeAll(async () => {
      await adapter.connect();
      await adapter.registerTools(registry, { namespace: 'wire', filter: { include: ['echo'] } });
    });
    afterAll(() => adapter.dispose());

    it('a timeoutMs longer than a timer can hold is no deadline for the request either, on both paths', async () => {
      for (const path of ['fast path', 'machine'] as const) {
        const outcome = await runToolCall(
          { registry },
          { tool: 'wire/echo', args: { message: path }, timeoutMs: MORE_THAN_A_TIMER_HOLDS },
          path === 'machine' ? { inspect: () => undefined } : {},
        );
        expect(outcome.error).toBeUndefined();
        expect(outcome).toMatchObject({ status: 'committed', result: { success: true } });
      }
    });
  });
});
