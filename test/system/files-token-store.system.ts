/**
 * Two real processes each saving 400 entries into one token file at the same moment (the
 * attacker's measurement: the old store lost 303-358 of the 800). About 3 s of CPU, so here
 * rather than in npm test (which runs 2 x 100).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingKeys, saver } from '../support/token-saver.js';

const base = mkdtempSync(join(tmpdir(), 'mcp-actors-files-token-system-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('FileTokenStore across processes, at length', () => {
  it('keeps all 800 entries when two processes save 400 each into one file at the same time', async () => {
    const file = join(base, 'auth.json');
    const one = saver(file, 'one-', 400);
    const two = saver(file, 'two-', 400);
    one.go();
    two.go();
    expect(await one.exited).toEqual({ code: 0, stderr: '' });
    expect(await two.exited).toEqual({ code: 0, stderr: '' });
    expect(missingKeys(file, ['one-', 'two-'], 400)).toEqual([]);
    expect(readdirSync(base)).toEqual(['auth.json']);
  });
});
