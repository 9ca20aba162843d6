import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, restartDelay } from '../src/timing/backoff.js';
import { restartsInWindow, withinIntensity } from '../src/server/restart-intensity.js';

const backoffConfig = fc
  .record({
    initialMs: fc.integer({ min: 0, max: 10_000 }),
    extraMaxMs: fc.integer({ min: 0, max: 100_000 }),
    factor: fc.double({ min: 1, max: 10, noNaN: true }),
    jitter: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .map(({ initialMs, extraMaxMs, factor, jitter }) => ({ initialMs, maxMs: initialMs + extraMaxMs, factor, jitter }));
const attempt = fc.integer({ min: 0, max: 2_000 });
const random = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

describe('backoff', () => {
  it('never exceeds maxMs and never goes below the jittered floor', () => {
    fc.assert(
      fc.property(backoffConfig, attempt, random, (config, n, r) => {
        const delay = backoffDelay(config, n, r);
        const base = config.initialMs === 0 ? 0 : Math.min(config.maxMs, config.initialMs * Math.pow(config.factor, n));
        expect(delay).toBeLessThanOrEqual(config.maxMs);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(base * (1 - config.jitter)));
        expect(Number.isInteger(delay)).toBe(true);
      }),
    );
  });

  it('grows monotonically with the attempt when there is no jitter', () => {
    fc.assert(
      fc.property(backoffConfig, attempt, attempt, (config, a, b) => {
        const plain = { ...config, jitter: 0 };
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(backoffDelay(plain, lo, 0.5)).toBeLessThanOrEqual(backoffDelay(plain, hi, 0.5));
      }),
    );
  });

  it('gives initialMs for the first restart without jitter', () => {
    expect(backoffDelay({ initialMs: 200, maxMs: 10_000, factor: 2, jitter: 0 }, 0, 0.9)).toBe(200);
    expect(backoffDelay({ initialMs: 200, maxMs: 10_000, factor: 2, jitter: 0 }, 3, 0.9)).toBe(1_600);
    expect(backoffDelay({ initialMs: 200, maxMs: 1_000, factor: 2, jitter: 0 }, 30, 0.9)).toBe(1_000);
    expect(backoffDelay({ initialMs: 0, maxMs: 1_000, factor: 2, jitter: 0 }, 5_000, 0.9)).toBe(0);
  });
});

describe('the restart rule', () => {
  it('restarts at once after the first crash in a window, and backs off from the second', () => {
    fc.assert(
      fc.property(backoffConfig, attempt, random, (config, n, r) => {
        expect(restartDelay(config, 0, true, r)).toBe(0);
        expect(restartDelay(config, n + 1, true, r)).toBe(backoffDelay(config, n, r));
      }),
    );
  });

  it('backs off a failed start from its first retry, never less than after a crash', () => {
    fc.assert(
      fc.property(backoffConfig, attempt, random, (config, n, r) => {
        expect(restartDelay(config, n, false, r)).toBe(backoffDelay(config, n, r));
        const plain = { ...config, jitter: 0 };
        expect(restartDelay(plain, n, true, r)).toBeLessThanOrEqual(restartDelay(plain, n, false, r));
      }),
    );
  });
});

describe('restart intensity', () => {
  it('never allows more than maxRestarts restarts within any period', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 1, max: 1_000 }),
        fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 60 }),
        (maxRestarts, periodMs, gaps) => {
          const config = { maxRestarts, periodMs };
          let now = 0;
          let times: number[] = [];
          const accepted: number[] = [];
          for (const gap of gaps) {
            now += gap;
            if (withinIntensity(times, now, config)) {
              times = [...restartsInWindow(times, now, periodMs), now];
              accepted.push(now);
            }
          }
          for (const start of accepted) {
            const inWindow = accepted.filter((t) => t >= start && t - start < periodMs);
            expect(inWindow.length).toBeLessThanOrEqual(maxRestarts);
          }
        },
      ),
    );
  });
});
