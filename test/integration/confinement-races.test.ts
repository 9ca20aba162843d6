/**
 * The quick share of the link races (the long ones, 300+ writes each, as root and as nobody, and
 * the unconfined runs that prove the race can fail, are in test/confine/, run by
 * `npm run test:confine`): a confined server-filesystem under a planted symlink and a flipping
 * directory writes nothing outside its sandbox, and every call's outcome matches the disk.
 */
import { describe, expect, it } from 'vitest';
import { requireBwrap, runLinkRace } from '../support/run-link-race.js';

const WRITES = 30;

describe('the link races, confined (quick share)', () => {
  for (const race of ['planted', 'flipping'] as const) {
    it(`${race}: ${WRITES} writes, none outside the sandbox, every outcome true to the disk`, async () => {
      requireBwrap();
      const summary = await runLinkRace(race, 'confined', WRITES);
      expect(summary.confinement).toEqual({ confined: true, state: 'confined' });
      expect(summary.calls).toBe(WRITES);
      expect(summary.outside).toEqual([]);
      expect(summary.mismatches).toEqual([]);
    }, 120_000);
  }
});
