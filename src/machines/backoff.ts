/**
 * Exponential backoff, pure (cockatiel's habit): the delay before restart number `attempt` (0 for
 * the first restart in the current intensity window) is `initialMs * factor^attempt`, capped at
 * `maxMs`, then reduced by up to `jitter` of itself using a random number in [0, 1).
 */
import type { BackoffConfig } from '../config/server-config.js';

export function backoffDelay(config: BackoffConfig, attempt: number, random: number): number {
  const growth = Math.pow(config.factor, Math.max(0, attempt));
  const base = config.initialMs === 0 ? 0 : Math.min(config.maxMs, config.initialMs * growth);
  const unit = Math.min(Math.max(random, 0), 1);
  return Math.round(base * (1 - config.jitter * unit));
}
