/**
 * No call leaves anything behind on a long-lived signal, over the real stdio fixture (where the
 * SDK is involved): 10,000 `actor.call`s and 10,000 `McpClient.callTool`s sharing one caller's
 * signal leave no abort listener, print no MaxListenersExceededWarning, keep the heap flat, and the
 * server never hears a `notifications/cancelled` for a settled call — during the run or at
 * shutdown. A call cancelled in flight is still cancelled on the wire, once.
 */
import { getEventListeners } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/mcp-client.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import type { CallSet } from '../../src/registry/call-signal.js';
import type { CallOutcome } from '../../src/tool-call/tool-call-io.js';
import { fixtureServerConfig, fixtureServerPath } from '../../src/testing/fixture.js';
import { waitUntil } from '../support/wait.js';

const CALLS = 10_000;
const MIB = 1024 * 1024;

// vitest cannot pass --expose-gc to its workers; V8 can still be asked for `gc` at run time.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
function heapAfterGc(): number {
  for (let i = 0; i < 3; i += 1) gc();
  return process.memoryUsage().heapUsed;
}

let dir: string;
const warnings: Error[] = [];
const onWarning = (warning: Error): void => {
  warnings.push(warning);
};
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-actors-signals-'));
  process.on('warning', onWarning);
});
afterAll(() => {
  process.off('warning', onWarning);
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  warnings.length = 0;
});

let logs = 0;
function wireLog(): { path: string; counts: () => Record<string, number> } {
  const path = join(dir, `wire-${++logs}.json`);
  return {
    path,
    counts: () => {
      try {
        return JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>;
      } catch {
        return {};
      }
    },
  };
}

const abortListeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;
const text = (result: { content: readonly unknown[] } | undefined): string =>
  String((result?.content[0] as { text?: unknown } | undefined)?.text);

function runtimeConfig(wirePath: string) {
  const pidLog = process.env.MCP_ACTORS_PID_LOG;
  return {
    servers: {
      fixture: {
        command: process.execPath,
        args: [fixtureServerPath()],
        env: { MCP_ACTORS_WIRE_LOG: wirePath, ...(pidLog ? { MCP_ACTORS_PID_LOG: pidLog } : {}) },
      },
    },
    tools: { 'fixture/echo': { overrides: { read_only: true } } },
    skills: { fx: { mcp_servers: ['fixture'] } },
    actors: { caller: { skills: ['fx'], permissions: { execute: 'allow' } } },
  };
}

describe('per-call signals over the real stdio fixture', () => {
  it('10,000 actor.calls leave no listener on the caller’s signal, no open call signal on the actor, a flat heap, and no cancellation on the wire', async () => {
    const wire = wireLog();
    const runtime = await createRuntime({ config: runtimeConfig(wire.path), callTimeoutMs: 30_000 });
    try {
      const actor = await runtime.activate('caller', { tenant: 'acme' });
      const caller = new AbortController();
      // The actor's set of call signals (what cancelCalls() aborts), read for this check only.
      const open = (): number => (actor as unknown as { callSignals: CallSet }).callSignals.size;
      let heapAt1k = 0;
      for (let i = 0; i < CALLS; i += 1) {
        const message = `m${i}`;
        const outcome = await actor.call('fixture/echo', { message }, i % 2 === 0 ? { signal: caller.signal } : {});
        if (outcome.status !== 'committed' || text(outcome.result) !== message) {
          throw new Error(`call ${i} ended ${outcome.status}: ${outcome.error?.message ?? text(outcome.result)}`);
        }
        if (i === 999) heapAt1k = heapAfterGc();
      }
      const heapAt10k = heapAfterGc();
      expect(open()).toBe(0);
      expect(abortListeners(caller.signal)).toBe(0);
      expect(heapAt10k - heapAt1k).toBeLessThan(MIB);
      // 16 in flight: the actor keeps no signal that every call listens to (Node would warn past ten).
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          for (let i = next++; i < 1_000; i = next++)
            expect(text((await actor.call('fixture/echo', { message: `c${i}` })).result)).toBe(`c${i}`);
        }),
      );
      expect(open()).toBe(0);
      expect(wire.counts()['notifications/cancelled']).toBeUndefined();
      caller.abort(new Error('the caller is done'));
      actor.cancelCalls('shutting down');
    } finally {
      await runtime.shutdown();
    }
    // The fixture writes its counts as it exits: nothing came at shutdown either.
    await waitUntil(() => wire.counts()['tools/call'] === CALLS + 1_000, 'the fixture to write its counts at exit');
    expect(wire.counts()['notifications/cancelled']).toBeUndefined();
  }, 120_000);

  it('10,000 McpClient.callTools sharing one caller’s signal leave no listener on it and send no cancellation', async () => {
    const wire = wireLog();
    const config = fixtureServerConfig();
    const client = new McpClient({ ...config, env: { ...config.env, MCP_ACTORS_WIRE_LOG: wire.path } });
    const caller = new AbortController();
    try {
      let heapAt1k = 0;
      for (let i = 0; i < CALLS; i += 1) {
        const message = `m${i}`;
        const result = await client.callTool('echo', { message }, { signal: caller.signal });
        if (text(result) !== message) throw new Error(`call ${i} answered ${text(result)}`);
        if (i === 999) heapAt1k = heapAfterGc();
      }
      const heapAt10k = heapAfterGc();
      expect(abortListeners(caller.signal)).toBe(0);
      expect(heapAt10k - heapAt1k).toBeLessThan(MIB);
      expect(wire.counts()['notifications/cancelled']).toBeUndefined();
      // Aborting the shared signal once every call has settled cancels nothing.
      caller.abort(new Error('the caller is done'));
    } finally {
      await client.dispose();
    }
    await waitUntil(() => wire.counts()['tools/call'] === CALLS, 'the fixture to write its counts at exit');
    expect(wire.counts()['notifications/cancelled']).toBeUndefined();
  }, 120_000);

  it('16 callers waiting on one signal for a server to start, and 16 listing its tools, hold one listener on it, none after', async () => {
    const config = fixtureServerConfig({ startupDelayMs: 300 });
    const client = new McpClient(config);
    const caller = new AbortController();
    try {
      const calls = Array.from({ length: 16 }, (_, i) => client.callTool('echo', { message: `m${i}` }, { signal: caller.signal }));
      await Promise.resolve();
      expect(abortListeners(caller.signal)).toBeLessThanOrEqual(1);
      const results = await Promise.all(calls);
      expect(results.map(text)).toEqual(Array.from({ length: 16 }, (_, i) => `m${i}`));
      const listings = Array.from({ length: 16 }, () => client.listTools({ signal: caller.signal }));
      expect(abortListeners(caller.signal)).toBeLessThanOrEqual(1);
      expect((await Promise.all(listings)).every((tools) => tools.some((tool) => tool.name === 'echo'))).toBe(true);
      expect(abortListeners(caller.signal)).toBe(0);
    } finally {
      await client.dispose();
    }
  }, 60_000);

  // One read-only call (the fast path) and one that may write (through the tool-call machine), each
  // ended while the server still works on it, then a settled call: each ended call is cancelled on
  // the wire once, and nothing more goes out, during the run or at shutdown.
  type Actor = Awaited<ReturnType<Awaited<ReturnType<typeof createRuntime>>['activate']>>;
  async function endedInFlight(end: (actor: Actor, tool: string) => Promise<CallOutcome>, code: string): Promise<CallOutcome[]> {
    const wire = wireLog();
    const runtime = await createRuntime({ config: runtimeConfig(wire.path), callTimeoutMs: 30_000 });
    const outcomes: CallOutcome[] = [];
    try {
      const actor = await runtime.activate('caller', { tenant: 'acme' });
      expect(actor.tools().find((tool) => tool.name === 'fixture/read_slowly')?.capabilities.readOnly).toBe(true); // the fast path
      expect(actor.tools().find((tool) => tool.name === 'fixture/sleep')?.capabilities.readOnly).toBe(false); // the machine
      for (const [index, tool] of ['fixture/read_slowly', 'fixture/sleep'].entries()) {
        const outcome = await end(actor, tool);
        expect(outcome).toMatchObject({ status: 'failed', error: { code } });
        outcomes.push(outcome);
        await waitUntil(() => wire.counts()['notifications/cancelled'] === index + 1, `cancellation ${index + 1} on the wire`);
      }
      expect((await actor.call('fixture/echo', { message: 'after' })).status).toBe('committed');
    } finally {
      await runtime.shutdown();
    }
    await waitUntil(() => wire.counts()['tools/call'] === 3, 'the fixture to write its counts at exit');
    expect(wire.counts()['notifications/cancelled']).toBe(2);
    return outcomes;
  }

  it('still cancels a call in flight on the wire, once, on the fast path and through the machine', async () => {
    await endedInFlight(async (actor, tool) => {
      const caller = new AbortController();
      const running = actor.call(tool, { ms: 20_000 }, { signal: caller.signal });
      await new Promise((resolve) => setTimeout(resolve, 200));
      caller.abort(new Error('no longer needed'));
      return running;
    }, 'CANCELLED');
  }, 60_000);

  it('a call that runs out of time is cancelled on the wire once, by the request’s own deadline, on the fast path and through the machine', async () => {
    const outcomes = await endedInFlight((actor, tool) => actor.call(tool, { ms: 20_000 }, { timeoutMs: 300 }), 'REQUEST_TIMEOUT');
    for (const outcome of outcomes) expect(outcome.error?.message).toContain('300 ms');
  }, 60_000);
});
