/**
 * The two steps of the attackers in the race tests (link-racer.mjs, dir-flipper.mjs): a busy wait
 * (a timer would hand the moment to the event loop) and an fs step that may lose its race.
 */

/** Spins for `us` microseconds. */
export const spin = (us) => {
  const end = process.hrtime.bigint() + BigInt(Math.round(us * 1000));
  while (process.hrtime.bigint() < end);
};

/** Runs `action`; false if it threw (the other side got there first). */
export const attempt = (action) => {
  try {
    action();
    return true;
  } catch {
    return false;
  }
};
