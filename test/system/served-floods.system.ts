/**
 * The attacker's floods against serveOverHttp, as reported, on a real server on 127.0.0.1:
 * hundreds of initializes from one tenant (one at a time and all at once) must leave another
 * tenant room, and one session sending dozens of multi-megabyte calls must leave the server holding
 * no more than its per-session byte budget. Too heavy for npm test (hundreds of sessions, ~250 MB
 * sent); run with `npx vitest run --config vitest.system.config.ts test/system/served-floods.system.ts`.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_EVENT_BYTES } from '../../src/serve/memory-event-store.js';
import { blobServer, initialize, servedHarness } from '../support/served-http.js';

const harness = servedHarness(blobServer(2_000_000));
const serve: typeof harness.serve = (options) => harness.serve(options);
const connect = async (url: string, token: string) => (await harness.connect(url, token)).client;

function tally(statuses: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe('one tenant flooding initialize', () => {
  it("opens 200 sessions of tenant a one after another: a gets its 100, b's initialize still succeeds", async () => {
    const server = await serve({ maxSessions: 200 });
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) statuses.push(await initialize(server.url, `a-${i}`));
    expect(tally(statuses)).toEqual({ 200: 100, 429: 100 });
    expect(await initialize(server.url, 'b-1')).toBe(200);
    expect(server.sessionCount('a')).toBe(100);
    expect(server.sessionCount('b')).toBe(1);
  });

  it('opens 300 sessions of tenant a all at once: exactly its quota is admitted, and b still gets in', async () => {
    const server = await serve({ maxSessions: 200 });
    const statuses = await Promise.all(Array.from({ length: 300 }, (_, i) => initialize(server.url, `a-${i}`)));
    expect(tally(statuses)).toEqual({ 200: 100, 429: 200 });
    expect(await initialize(server.url, 'b-1')).toBe(200);
    expect(server.sessionCount()).toBe(101);
  });
});

describe('one session flooding its event store', () => {
  it('keeps at most the default byte budget after 60 calls naming a 3.9 MB unknown tool and 60 answers of 1 MB', async () => {
    const server = await serve();
    const client = await connect(server.url, 'a-1');
    const name = 'n'.repeat(3_900_000);
    for (let i = 0; i < 60; i++) {
      await expect(client.callTool({ name, arguments: {} })).rejects.toThrow('Unknown tool');
    }
    expect(server.retainedEventBytes()).toBeLessThanOrEqual(DEFAULT_MAX_EVENT_BYTES);
    for (let i = 0; i < 60; i++) {
      const answer = (await client.callTool({ name: 'blob_make', arguments: { size: 500_000 } })) as CallToolResult;
      expect((answer.structuredContent as { data: string }).data).toHaveLength(500_000);
    }
    // 60 answers of about 1 MB each (text and structured content): 60 MB without the byte budget.
    expect(server.retainedEventBytes()).toBeLessThanOrEqual(DEFAULT_MAX_EVENT_BYTES);
  });
});
