/**
 * The fault matrix, transport side: the SDK Client over `faultyTransport` around our stdio
 * transport to the real fixture, one test per mode. Each asserts that every call settles exactly
 * once (answered, or failed with a timeout or a lost connection), that the answers that come are
 * the right ones, and that no process is left. Seeds are fixed, so a failure replays.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { serverEnvironment } from '../../src/actors/server-environment.js';
import { StdioProcessTransport } from '../../src/actors/stdio-process-transport.js';
import { fixtureServerConfig } from '../../src/testing/fixture.js';
import { faultyTransport, spawnedProcesses, type FaultPlan } from '../../src/testing/index.js';
import { expectAllGone } from '../support/processes.js';
import { record } from './support/record.js';

const CALLS = 30;

async function run(plan: FaultPlan): Promise<{ outcomes: string[][]; pid: number; ms: number }> {
  const config = fixtureServerConfig({ name: 'faulty' });
  const inner = new StdioProcessTransport({
    command: config.command,
    args: config.args,
    env: serverEnvironment(config.env),
    shutdownTimeoutMs: 1_000,
    maxMessageBytes: 1 << 20,
    stderrLines: 20,
    serverName: 'faulty',
  });
  const transport = faultyTransport(inner, { spare: 3, log: () => undefined, ...plan });
  const client = new Client({ name: 'reliability', version: '0' });
  client.onerror = () => undefined;
  await client.connect(transport, { timeout: 10_000 });
  const pid = inner.pid!;
  const started = Date.now();
  const outcomes: string[][] = Array.from({ length: CALLS }, () => []);
  await Promise.all(
    outcomes.map((slot, i) =>
      client.callTool({ name: 'echo', arguments: { message: `m${i}` } }, undefined, { timeout: 1_500 }).then(
        (result) => slot.push((result.content as { text: string }[])[0]?.text === `m${i}` ? 'ok' : `wrong answer ${JSON.stringify(result)}`),
        (error: { code?: unknown }) => slot.push(`error ${String(error.code)}`),
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

  it('transport-delay: every call is answered', async () => {
    const { outcomes, ms } = await run({ seed: 8, delay: 0.5, delayMs: 30 });
    expect(outcomes.every(([o]) => o === 'ok')).toBe(true);
    record('transport-delay', `seed 8: ${summary(outcomes)}`, ms);
  });

  it('transport-duplicate: every call settles once', async () => {
    const { outcomes, ms } = await run({ seed: 9, duplicate: 0.3 });
    expect(outcomes.every(([o]) => o === 'ok')).toBe(true);
    record('transport-duplicate', `seed 9: ${summary(outcomes)}`, ms);
  });

  it('transport-reorder: every call is answered', async () => {
    const { outcomes, ms } = await run({ seed: 10, reorder: 0.3 });
    expect(outcomes.every(([o]) => o === 'ok')).toBe(true);
    record('transport-reorder', `seed 10: ${summary(outcomes)}`, ms);
  });

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
