/** faultyTransport replays: the same seed and plan give the same faults on the same messages. */
import fc from 'fast-check';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { faultyTransport, type FaultPlan } from '../src/testing/faulty-transport.js';

function recorder(): Transport & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    send: (m: JSONRPCMessage) => {
      sent.push(JSON.stringify(m));
      return Promise.resolve();
    },
  };
}

async function replay(plan: FaultPlan, count: number): Promise<{ sent: string[]; stats: unknown }> {
  const inner = recorder();
  const faulty = faultyTransport(inner, { ...plan, log: () => undefined, delayMs: 1 });
  for (let i = 0; i < count; i++) await faulty.send({ jsonrpc: '2.0', id: i, method: 'tools/call', params: {} });
  await new Promise((resolve) => setTimeout(resolve, 80));
  return { sent: inner.sent, stats: { ...faulty.stats } };
}

const chance = fc.double({ min: 0, max: 0.2, noNaN: true });

describe('faultyTransport', () => {
  it('gives the same faults for the same seed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        chance,
        chance,
        chance,
        chance,
        async (seed, drop, corrupt, duplicate, reorder) => {
          const plan = { seed, drop, corrupt, duplicate, reorder };
          const [a, b] = [await replay(plan, 40), await replay(plan, 40)];
          expect(b).toEqual(a);
        },
      ),
      { numRuns: 20 },
    );
  });

  it('loses nothing but what it drops, and closes after disconnectAfter', async () => {
    const { sent, stats } = await replay({ seed: 3, duplicate: 0.2, reorder: 0.2, disconnectAfter: 30 }, 40);
    const s = stats as Record<string, number>;
    expect(sent).toHaveLength(30 + s.duplicate!);
    expect(s.disconnected).toBe(1);
  });
});
