/**
 * The fault matrix, transport side: the SDK Client over `faultyTransport` around our stdio
 * transport to the real fixture, one test per mode. Each asserts that every call settles exactly
 * once (answered, or failed with a timeout or a lost connection), that the answers that come are
 * the right ones, and that no process is left. Seeds are fixed, so a failure replays.
 *
 * Then the same modes through the supervised server (`supervised-transport-*` rows): `McpClient`
 * over `connectOverTransport`, asserting also the state the machine reached and the runtime's codes.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { serverEnvironment } from '../../src/process/server-environment.js';
import { StdioProcessTransport } from '../../src/server/stdio-process-transport.js';
import { McpClient } from '../../src/client/mcp-client.js';
import { validateServerConfig, type McpServerConfig } from '../../src/config/server-config.js';
import type { ResolvedServerConfig } from '../../src/config/server-schema.js';
import { isMcpActorsError } from '../../src/errors/index.js';
import { publicStateOf } from '../../src/server/server-machine.js';
import { ServerState } from '../../src/server/server-states.js';
import { fixtureServerConfig } from '../../src/testing/fixture.js';
import {
  connectOverTransport,
  faultyTransport,
  spawnedProcesses,
  waitForServerState,
  type FaultPlan,
  type FaultyTransport,
} from '../../src/testing/index.js';
import { expectAllGone } from '../support/processes.js';
import { waitUntil } from '../support/wait.js';
import { record } from './support/record.js';

const CALLS = 30;

/** Our stdio transport to the real fixture as `resolved` says, wrapped in a `faultyTransport` of `plan`. */
function faultyStdio(
  plan: FaultPlan,
  resolved: ResolvedServerConfig,
  fallback: McpServerConfig,
): { inner: StdioProcessTransport; transport: FaultyTransport } {
  const inner = new StdioProcessTransport({
    command: resolved.command ?? fallback.command!,
    args: resolved.args,
    env: serverEnvironment(resolved.env),
    shutdownTimeoutMs: resolved.shutdownTimeoutMs,
    maxMessageBytes: resolved.maxMessageBytes,
    stderrLines: resolved.stderrLines,
    serverName: resolved.name,
  });
  return { inner, transport: faultyTransport(inner, { spare: 3, log: () => undefined, ...plan }) };
}

async function run(plan: FaultPlan): Promise<{ outcomes: string[][]; pid: number; ms: number }> {
  const config = fixtureServerConfig({ name: 'faulty', extra: { shutdownTimeoutMs: 1_000, maxMessageBytes: 1 << 20, stderrLines: 20 } });
  const { inner, transport } = faultyStdio(plan, validateServerConfig(config), config);
  const client = new Client({ name: 'reliability', version: '0' });
  client.onerror = () => undefined;
  await client.connect(transport, { timeout: 10_000 });
  const pid = inner.pid!;
  const started = Date.now();
  const outcomes: string[][] = Array.from({ length: CALLS }, () => []);
  await Promise.all(
    outcomes.map((slot, i) =>
      client.callTool({ name: 'echo', arguments: { message: `m${i}` } }, undefined, { timeout: 1_500 }).then(
        (result) =>
          slot.push((result.content as { text: string }[])[0]?.text === `m${i}` ? 'ok' : `wrong answer ${JSON.stringify(result)}`),
        (error: unknown) => slot.push(`error ${String(error instanceof Object && 'code' in error ? error.code : undefined)}`),
      ),
    ),
  );
  const ms = Date.now() - started;
  await client.close();
  await expectAllGone([pid], [pid]);
  expect(spawnedProcesses().groups).toEqual([]);
  for (const slot of outcomes) expect(slot).toHaveLength(1);
  for (const slot of outcomes) expect(slot[0]).not.toMatch(/^wrong answer/);
  return { outcomes, pid, ms };
}

const summary = (outcomes: string[][]): string => {
  const counts = new Map<string, number>();
  for (const [outcome] of outcomes) counts.set(outcome!, (counts.get(outcome!) ?? 0) + 1);
  return [...counts].map(([what, n]) => `${n} ${what}`).join(', ');
};

// -32001 is the SDK's request timeout; -32000 its "connection closed".
describe('the faultyTransport matrix', () => {
  it('transport-drop: dropped calls time out, the others are answered', async () => {
    const { outcomes, ms } = await run({ seed: 7, drop: 0.2 });
    const flat = outcomes.map(([o]) => o);
    expect(flat).toContain('ok');
    expect(flat).toContain('error -32001');
    expect(flat.every((o) => o === 'ok' || o === 'error -32001')).toBe(true);
    record('transport-drop', `seed 7: ${summary(outcomes)}`, ms);
  });

  for (const { id, says, plan } of [
    { id: 'transport-delay', says: 'every call is answered', plan: { seed: 8, delay: 0.5, delayMs: 30 } },
    { id: 'transport-duplicate', says: 'every call settles once', plan: { seed: 9, duplicate: 0.3 } },
    { id: 'transport-reorder', says: 'every call is answered', plan: { seed: 10, reorder: 0.3 } },
  ]) {
    it(`${id}: ${says}`, async () => {
      const { outcomes, ms } = await run(plan);
      expect(outcomes.every(([o]) => o === 'ok')).toBe(true);
      record(id, `seed ${plan.seed}: ${summary(outcomes)}`, ms);
    });
  }

  it('transport-corrupt: corrupted calls fail or time out, the others are answered', async () => {
    const { outcomes, ms } = await run({ seed: 11, corrupt: 0.2 });
    const flat = outcomes.map(([o]) => o);
    expect(flat).toContain('ok');
    expect(flat.some((o) => o !== 'ok')).toBe(true);
    record('transport-corrupt', `seed 11: ${summary(outcomes)}`, ms);
  });

  it('transport-disconnect: after 10 messages the rest fail with the connection closed', async () => {
    const { outcomes, ms } = await run({ seed: 12, disconnectAfter: 10 });
    const flat = outcomes.map(([o]) => o);
    expect(flat).toContain('error -32000');
    expect(flat.every((o) => o === 'ok' || o === 'error -32000')).toBe(true);
    record('transport-disconnect', `seed 12: ${summary(outcomes)}`, ms);
  });
});

/**
 * The same modes through the supervised server: `McpClient` over `connectOverTransport`, each start
 * asking the factory for a fresh `faultyTransport` (same plan, same seed) around a fresh stdio
 * fixture. These rows assert what the raw SDK Client cannot show: the machine's state afterwards,
 * the runtime's error codes (from `src/errors/codes.ts`), and that `stop()` leaves no process.
 */
interface Supervised {
  readonly client: McpClient;
  readonly made: FaultyTransport[];
  readonly pids: number[];
  /** Every public state the server went through, consecutive repeats folded. */
  readonly states: string[];
  /** Fires `CALLS` concurrent echo calls; each slot holds how its call settled ('ok' or a code). */
  calls(timeoutMs?: number): Promise<string[][]>;
  /** `start()`, then `calls(timeoutMs)`, timed from the first call. */
  startAndCall(timeoutMs?: number): Promise<{ outcomes: string[][]; ms: number }>;
  /** One more call, its outcome. */
  echo(message: string, timeoutMs?: number): Promise<string>;
  /** `stop()`, then no process of any transport it made is alive and no group is tracked. */
  stop(): Promise<void>;
}

function supervised(plan: FaultPlan, extra: Partial<McpServerConfig> = {}): Supervised {
  const made: FaultyTransport[] = [];
  const inners: StdioProcessTransport[] = [];
  const config = fixtureServerConfig({ name: 'supervised-faulty' });
  const client = new McpClient(
    { ...config, shutdownTimeoutMs: 1_000, backoff: { initialMs: 20, maxMs: 200, factor: 2, jitter: 0 }, ...extra },
    {
      actors: {
        connectServer: connectOverTransport((resolved) => {
          const { inner, transport } = faultyStdio(plan, resolved, config);
          inners.push(inner);
          made.push(transport);
          return transport;
        }),
      },
    },
  );
  const states: string[] = [];
  let actorError: unknown;
  client.actor.subscribe({
    next: (snapshot) => {
      const state = publicStateOf(snapshot);
      if (states[states.length - 1] !== state) states.push(state);
    },
    error: (error) => {
      actorError = error;
    },
  });
  const outcome = (promise: Promise<CallToolResult>, message: string, slot: string[]): Promise<string> =>
    promise.then(
      (result) => {
        const text = (result.content as { text?: string }[])[0]?.text;
        slot.push(text === message ? 'ok' : `wrong answer ${JSON.stringify(result)}`);
        return slot[slot.length - 1]!;
      },
      (error: unknown) => {
        slot.push(isMcpActorsError(error) ? error.code : `untyped: ${String(error)}`);
        return slot[slot.length - 1]!;
      },
    );
  return {
    client,
    made,
    states,
    get pids() {
      return inners.map((t) => t.pid).filter((pid): pid is number => pid !== undefined);
    },
    async calls(timeoutMs = 1_500) {
      const slots: string[][] = Array.from({ length: CALLS }, () => []);
      await Promise.all(slots.map((slot, i) => outcome(client.callTool('echo', { message: `m${i}` }, { timeoutMs }), `m${i}`, slot)));
      for (const slot of slots) expect(slot, 'every call settles exactly once').toHaveLength(1);
      for (const slot of slots) expect(slot[0]).not.toMatch(/^(wrong answer|untyped)/);
      return slots;
    },
    async startAndCall(timeoutMs) {
      await client.start({ timeoutMs: 10_000 });
      const started = Date.now();
      const outcomes = await this.calls(timeoutMs);
      return { outcomes, ms: Date.now() - started };
    },
    echo(message, timeoutMs = 10_000) {
      return outcome(client.callTool('echo', { message }, { timeoutMs }), message, []);
    },
    async stop() {
      const pids = this.pids;
      expect(pids.length).toBeGreaterThan(0);
      await client.stop();
      expect(client.state).toBe('STOPPED');
      await client.dispose();
      await expectAllGone(pids, pids);
      expect(spawnedProcesses().groups).toEqual([]);
      expect(actorError, 'the server actor never failed').toBeUndefined();
      for (const state of states) expect(Object.values(ServerState), `state ${state}`).toContain(state);
      expect(states[states.length - 1]).toBe('STOPPED');
    },
  };
}

const only = (outcomes: string[][], allowed: readonly string[]): void => {
  for (const [o] of outcomes) expect(allowed, `outcome ${o}`).toContain(o);
};

describe('the faultyTransport matrix, supervised (McpClient over connectOverTransport)', () => {
  it('supervised-transport-drop: dropped calls REQUEST_TIMEOUT, the others answered, RUNNING, no restart', async () => {
    const s = supervised({ seed: 7, drop: 0.2 });
    const { outcomes, ms } = await s.startAndCall();
    const flat = outcomes.map(([o]) => o);
    expect(flat).toContain('ok');
    expect(flat).toContain('REQUEST_TIMEOUT');
    only(outcomes, ['ok', 'REQUEST_TIMEOUT']);
    expect(s.client.state).toBe('RUNNING');
    expect(s.client.status().restarts).toBe(0);
    expect(s.made).toHaveLength(1);
    await s.stop();
    expect(s.states).toEqual(['STARTING', 'RUNNING', 'STOPPING', 'STOPPED']);
    record('supervised-transport-drop', `seed 7: ${summary(outcomes)}; RUNNING, restarts 0, stop() left no process`, ms);
  });

  for (const { mode, says, plan } of [
    { mode: 'delay', says: 'every call answered, RUNNING', plan: { seed: 8, delay: 0.5, delayMs: 30 } },
    { mode: 'duplicate', says: 'every call settles once with its answer, RUNNING', plan: { seed: 9, duplicate: 0.3 } },
    { mode: 'reorder', says: 'every call answered, RUNNING', plan: { seed: 10, reorder: 0.3 } },
  ] as const) {
    it(`supervised-transport-${mode}: ${says}`, async () => {
      const s = supervised(plan);
      const { outcomes, ms } = await s.startAndCall(10_000);
      only(outcomes, ['ok']);
      expect(s.made[0]!.stats[mode]).toBeGreaterThan(0);
      expect(s.client.state).toBe('RUNNING');
      expect(s.client.status().restarts).toBe(0);
      await s.stop();
      record(`supervised-transport-${mode}`, `seed ${plan.seed}: ${summary(outcomes)}; RUNNING, restarts 0, stop() left no process`, ms);
    });
  }

  it('supervised-transport-corrupt: corrupted calls PROTOCOL_ERROR or REQUEST_TIMEOUT, the others answered, RUNNING', async () => {
    const s = supervised({ seed: 11, corrupt: 0.2 });
    const { outcomes, ms } = await s.startAndCall();
    const flat = outcomes.map(([o]) => o);
    expect(flat).toContain('ok');
    expect(flat.some((o) => o !== 'ok')).toBe(true);
    only(outcomes, ['ok', 'PROTOCOL_ERROR', 'REQUEST_TIMEOUT']);
    expect(s.client.state).toBe('RUNNING');
    expect(s.client.status().restarts).toBe(0);
    expect(await s.echo('after')).toBe('ok');
    await s.stop();
    expect(s.states).toEqual(['STARTING', 'RUNNING', 'STOPPING', 'STOPPED']);
    record('supervised-transport-corrupt', `seed 11: ${summary(outcomes)}; RUNNING, restarts 0, stop() left no process`, ms);
  });

  it('supervised-transport-disconnect: calls in flight CONNECTION_LOST, the machine restarts it over a fresh transport, the next call answered', async () => {
    const s = supervised({ seed: 12, disconnectAfter: 10 });
    await s.client.start({ timeoutMs: 10_000 });
    const started = Date.now();
    const outcomes = await s.calls();
    const flat = outcomes.map(([o]) => o);
    expect(flat).toContain('CONNECTION_LOST');
    only(outcomes, ['ok', 'CONNECTION_LOST']);
    await waitForServerState(s.client, 'RUNNING', 10_000);
    expect(await s.echo('again')).toBe('ok');
    const ms = Date.now() - started;
    expect(s.made).toHaveLength(2);
    expect(s.made[0]!.stats.disconnected).toBe(1);
    expect(s.client.status().restarts).toBe(1);
    expect(s.client.status().lastError?.code).toBe('SERVER_CRASHED');
    await s.stop();
    expect(s.states).toEqual(['STARTING', 'RUNNING', 'STARTING', 'RUNNING', 'STOPPING', 'STOPPED']);
    record(
      'supervised-transport-disconnect',
      `seed 12: ${summary(outcomes)}; ${s.client.status().lastError?.code ?? ''}, restarted over a fresh transport (restarts 1), next call answered, stop() left no process`,
      ms,
    );
  });

  it('supervised-transport-disconnect-every-start: each fresh transport disconnects at the first call; after maxRestarts the server is in ERROR', async () => {
    // disconnectAfter 3: the handshake (3 messages) passes, the first call's request closes the connection.
    const s = supervised({ seed: 13, disconnectAfter: 3 }, { maxRestarts: 2 });
    await s.client.start({ timeoutMs: 10_000 });
    const started = Date.now();
    const seen: string[] = [];
    for (let i = 0; i < 6 && !seen.includes('SERVER_IN_ERROR'); i += 1) {
      seen.push(await s.echo(`m${i}`));
      await waitUntil(() => s.client.state === 'RUNNING' || s.client.state === 'ERROR', 'RUNNING or ERROR', 10_000);
    }
    const ms = Date.now() - started;
    // 1 start + 2 restarts, each losing its call; the third loss exceeds the intensity.
    expect(seen).toEqual(['CONNECTION_LOST', 'CONNECTION_LOST', 'CONNECTION_LOST', 'SERVER_IN_ERROR']);
    expect(s.client.state).toBe('ERROR');
    expect(s.made).toHaveLength(3);
    expect(s.made.every((t) => t.stats.disconnected === 1)).toBe(true);
    expect(s.client.status().restarts).toBe(2);
    expect(s.client.status().lastError?.code).toBe('SERVER_CRASHED');
    await s.stop();
    // A crash goes through starting.failing (the dead transport is closed) before the machine decides: STARTING, then ERROR.
    expect(s.states).toEqual(['STARTING', 'RUNNING', 'STARTING', 'RUNNING', 'STARTING', 'RUNNING', 'STARTING', 'ERROR', 'STOPPED']);
    record(
      'supervised-transport-disconnect-every-start',
      `seed 13: ${seen.join(', ')}; ERROR after 3 transports (restarts 2, maxRestarts 2), lastError SERVER_CRASHED, stop() left no process`,
      ms,
    );
  });
});
