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

/**
 * The wait before the next automatic start, given how many restarts the intensity window already
 * holds. After a crash of a server that was RUNNING, the first restart in the window is immediate
 * (as OTP restarts a child at once) and backoff grows from the second; after a failed start, the
 * first retry already backs off, since trying again at once would most likely fail the same way.
 *
 * @example
 * restartDelay(config, 0, true, Math.random());  // 0: a crash, first in the window
 * restartDelay(config, 0, false, Math.random()); // ~initialMs: a failed start
 */
export function restartDelay(config: BackoffConfig, restartsInWindow: number, afterCrash: boolean, random: number): number {
  if (!afterCrash) return backoffDelay(config, restartsInWindow, random);
  return restartsInWindow <= 0 ? 0 : backoffDelay(config, restartsInWindow - 1, random);
}
