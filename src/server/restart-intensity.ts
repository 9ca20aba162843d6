/**
 * OTP's restart intensity, pure: at most `maxRestarts` automatic restarts within any `periodMs`.
 * The window holds the times of the restarts it still counts; the next restart is allowed only
 * while fewer than `maxRestarts` remain in it.
 */

export interface IntensityConfig {
  readonly maxRestarts: number;
  readonly periodMs: number;
}

/** The restart times that still count at `now`. */
export function restartsInWindow(times: readonly number[], now: number, periodMs: number): number[] {
  return times.filter((time) => now - time < periodMs);
}

/** Whether one more automatic restart at `now` stays within the intensity. */
export function withinIntensity(times: readonly number[], now: number, config: IntensityConfig): boolean {
  return restartsInWindow(times, now, config.periodMs).length < config.maxRestarts;
}
