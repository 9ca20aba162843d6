/**
 * Rolls a store back to one checkpoint again and again, while an attacker races it, counting how
 * each rollback ended: `restored`, an error's code, or `threw …` for anything that is not one of
 * ours. Shared by the quick rollback race (npm test) and the long ones (`npm run test:confine`).
 */
import { isMcpActorsError } from '../../src/errors/index.js';
import type { CheckpointStore } from '../../src/sandbox/checkpoint-store.js';

export interface RollbackOutcomes {
  readonly rollbacks: number;
  readonly outcomes: Record<string, number>;
}

/** Up to `limit` rollbacks to `id`, stopping early once `goOn()` says no. */
export async function rollBackRepeatedly(
  store: CheckpointStore,
  id: string,
  limit: number,
  goOn: () => boolean = () => true,
): Promise<RollbackOutcomes> {
  const outcomes: Record<string, number> = {};
  let rollbacks = 0;
  while (rollbacks < limit && goOn()) {
    rollbacks += 1;
    const outcome = await store.rollback(id).then(
      () => 'restored',
      (error: unknown) => (isMcpActorsError(error) ? error.code : `threw ${String(error)}`),
    );
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  }
  return { rollbacks, outcomes };
}

/** The outcomes other than a restore or CHECKPOINT_FAILED (the journal kept): there must be none. */
export const unexpectedOutcomes = (outcomes: Record<string, number>): string[] =>
  Object.keys(outcomes).filter((kind) => kind !== 'restored' && kind !== 'CHECKPOINT_FAILED');
