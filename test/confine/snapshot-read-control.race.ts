/**
 * The control of the snapshot read races (test/confine/snapshot-read-race.race.ts): a folder
 * nobody denies IS read through the swapped link, so the box is what keeps the denied ones out. It
 * needs the attack to win a race, which on a loaded machine may take many tries, so it lives here
 * (`npm run test:confine`) and retries, bounded, until it does.
 */
import { describe, expect, it } from 'vitest';
import { diffsUnderAttack, inSandbox, secretFolder } from '../support/snapshot-read-attack.js';

const TRIES_PER_ROUND = 300;
const ROUNDS = Number(process.env.CONFINE_CONTROL_ROUNDS ?? 10);

describe('the snapshot read race, control', () => {
  it(
    `a folder nobody denies is read through the link (up to ${ROUNDS} rounds of ${TRIES_PER_ROUND} diffs)`,
    async () => {
      let [rounds, secret] = [0, 0];
      while (secret === 0 && rounds < ROUNDS) {
        rounds += 1;
        await inSandbox(async ({ sandbox, base, project }) => {
          const seen = await diffsUnderAttack(sandbox, base, secretFolder(project, 'not-denied'), 'f', TRIES_PER_ROUND, {
            untilSecret: true,
          });
          secret = seen.secret;
        });
      }
      console.log(JSON.stringify({ control: 'snapshot-read', rounds, secret }));
      expect(secret).toBeGreaterThan(0);
    },
    30 * 60_000,
  );
});
