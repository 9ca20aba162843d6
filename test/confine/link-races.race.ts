/**
 * The link races of issue 15 at full length (`npm run test:confine`; CONFINE_RACE_WRITES, default
 * 300): a planted symlink and a flipping directory under @modelcontextprotocol/server-filesystem.
 * Confined — as root and as an unprivileged user — nothing is written outside the sandbox and every
 * call's outcome matches the disk; unconfined, the same race writes outside at least once, which
 * shows the test can fail.
 */
import { describe, expect, it } from 'vitest';
import { requireBwrap, runLinkRace } from '../support/run-link-race.js';

const WRITES = Number(process.env.CONFINE_RACE_WRITES ?? 300);
const LONG = 30 * 60_000;

describe('the link races, confined', () => {
  for (const unprivileged of [false, true]) {
    for (const race of ['planted', 'flipping'] as const) {
      it(
        `${race}, as ${unprivileged ? 'nobody (uid 65534)' : 'this user'}: ${WRITES} writes, none outside, every outcome true to the disk`,
        async () => {
          requireBwrap();
          const summary = await runLinkRace(race, 'confined', WRITES, { unprivileged });
          console.log(JSON.stringify({ race, unprivileged, counts: summary.counts }));
          if (unprivileged) expect(summary.uid).toBe(65534);
          expect(summary.confinement).toEqual({ confined: true, state: 'confined' });
          expect(summary.calls).toBe(WRITES);
          expect(summary.outside).toEqual([]);
          expect(summary.lost).toEqual([]);
          expect(summary.mismatches).toEqual([]);
        },
        LONG,
      );
    }
  }
});

describe('the link races, unconfined (the test can fail)', () => {
  for (const race of ['planted', 'flipping'] as const) {
    // Unconfined, writes go on past WRITES (up to 5 × WRITES) until one lands outside.
    it(
      `${race}: at least one write lands outside the sandbox`,
      async () => {
        const summary = await runLinkRace(race, 'unconfined', WRITES, { untilEscape: true });
        console.log(
          JSON.stringify({
            race,
            unconfined: true,
            calls: summary.calls,
            outside: summary.outside.length,
            lies: summary.mismatches.length,
            escapeEvents: summary.escapeEvents,
            counts: summary.counts,
          }),
        );
        expect(summary.confinement).toMatchObject({ confined: false, state: 'opted-out' });
        expect(summary.outside.length).toBeGreaterThan(0);
      },
      LONG,
    );
  }
});
