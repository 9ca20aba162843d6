import { groupMembers, isProcessAlive } from '../../src/actors/process-table.js';
import { waitUntil } from './wait.js';

/** Waits until none of `pids` (nor any member of their groups) is alive; zombies count as gone. */
export async function expectAllGone(pids: readonly number[], groups: readonly number[] = []): Promise<void> {
  const alive = (): number[] => [...pids.filter(isProcessAlive), ...groups.flatMap(groupMembers)];
  await waitUntil(() => alive().length === 0, `processes ${alive().join(', ')} to end`, 5_000);
}
