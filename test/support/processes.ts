import { afterEach } from 'vitest';
import { groupMembers, isProcessAlive } from '../../src/process/process-table.js';
import type { McpClient } from '../../src/client/mcp-client.js';
import { waitUntil } from './wait.js';

/** Waits until none of `pids` (nor any member of their groups) is alive; zombies count as gone. */
export async function expectAllGone(pids: readonly number[], groups: readonly number[] = []): Promise<void> {
  const alive = (): number[] => [...pids.filter(isProcessAlive), ...groups.flatMap(groupMembers)];
  await waitUntil(() => alive().length === 0, `processes ${alive().join(', ')} to end`, 5_000);
}

/**
 * Registers the hook in the calling test file; returns `kept(client)`. After each test every client
 * kept is disposed (all together), then none of their server processes, nor their groups, is alive.
 */
export function clientsGoneAfterEach(): (client: McpClient) => McpClient {
  const clients: McpClient[] = [];
  afterEach(async () => {
    const pids = clients.map((c) => c.status().pid).filter((p): p is number => p !== undefined);
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await expectAllGone(pids, pids);
  });
  return (client) => {
    clients.push(client);
    return client;
  };
}
