/**
 * What the fixture and in-process fault matrices do alike to a supervised server (`McpClient`):
 * fast restarts, calls tracked so that each is proved to settle once, the wait for a recovery and
 * for a state, the four concurrent calls that must each get their own answer, and a flood of
 * tool list changes seen through the adapter.
 */
import { McpToolAdapter } from '../../../src/adapter/mcp-tool-adapter.js';
import type { McpClient } from '../../../src/client/mcp-client.js';
import type { McpServerConfig } from '../../../src/config/server-config.js';
import type { ServerState } from '../../../src/server/server-states.js';
import { expect } from 'vitest';
import { ToolRegistry } from '../../../src/registry/tool-registry.js';
import { waitUntil } from '../../support/wait.js';
import type { Settlements } from './record.js';

/** Restarts within tens of milliseconds, a short stop budget. */
export const FAST: Partial<McpServerConfig> = { backoff: { initialMs: 20, maxMs: 200, factor: 2, jitter: 0 }, shutdownTimeoutMs: 1_000 };

export interface FaultCase {
  readonly client: McpClient;
  readonly calls: Settlements;
}

/** A tracked echo call: 'ok' or the code it failed with. */
export const echo = (c: FaultCase, message = 'x', timeoutMs = 10_000): Promise<string> =>
  c.calls.track(c.client.callTool('echo', { message }, { timeoutMs }));

/** Time from `since` until the server answers a call again. */
export async function recovered(c: FaultCase, since: number): Promise<number> {
  expect(await echo(c, 'again')).toBe('ok');
  return Date.now() - since;
}

/** Resolves when `state$` shows `state` (at once if it is the state now). */
export function reaches(client: McpClient, state: ServerState): Promise<void> {
  return new Promise<void>((resolve) => {
    // An object, not a `let`: the callback below may set it before `subscribe` returns.
    const seen = { reached: false };
    let subscription: { unsubscribe(): void } | undefined = undefined;
    subscription = client.state$.subscribe((s) => {
      if (seen.reached || s !== state) return;
      seen.reached = true;
      subscription?.unsubscribe();
      resolve();
    });
    // A state$ that replays the current state calls back before `subscription` is set.
    if (seen.reached) subscription.unsubscribe();
  });
}

/** Four concurrent echo calls ('a' to 'd'): the text each was answered with, in call order. */
export async function fourAnswers(client: McpClient): Promise<string[]> {
  const answers = await Promise.all(['a', 'b', 'c', 'd'].map((m) => client.callTool('echo', { message: m })));
  return answers.map((a) => (a.content[0] as { text: string }).text);
}

/**
 * Registers the server's tools through an adapter, as the runtime does, and waits through two
 * thousand `tools/list_changed` and at least one refresh; what it saw, for the row.
 */
export async function throughListChangedFlood(client: McpClient): Promise<string> {
  const adapter = new McpToolAdapter(client);
  let [changes, refreshes] = [0, 0];
  client.toolsChanged$.subscribe(() => (changes += 1));
  adapter.onToolsChanged(() => (refreshes += 1));
  await adapter.connect();
  const registry = new ToolRegistry();
  await adapter.registerTools(registry, { namespace: 'fx' });
  await waitUntil(() => changes >= 2_000 && refreshes >= 1, 'two thousand changes and a refresh');
  expect(registry.has('fx/echo')).toBe(true);
  expect(client.state).toBe('RUNNING');
  return `${changes} list_changed, ${refreshes} refreshes one at a time, RUNNING`;
}
