/**
 * The runtime uses XState through its public API only (`spawnChild`, `stopChild`, `waitFor`,
 * inspection events' public fields): none of the private members of its actors or system appear
 * anywhere in src/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../../src', import.meta.url));

/** XState 5's private members of Actor, ActorSystem and snapshots that code might be tempted to reach. */
const PRIVATE =
  /\.\s*(_parent|_stop|_send|_relay|_snapshot|_actorScope|_processingStatus|_sendInspectionEvent|_unregister|_process|_deferred|_set|_error|_initState|_syncSnapshot|_boot|_nodes|_transitions)\b/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|mts|mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

describe('XState, public API only', () => {
  it('reaches no private member of an actor or a system anywhere in src/', () => {
    const files = sources(src);
    expect(files.length).toBeGreaterThan(50);
    const hits = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, index) => ({ file, line: index + 1, text: line }))
        .filter(({ text }) => PRIVATE.test(text)),
    );
    expect(hits).toEqual([]);
  });

  it('would see one (the pattern matches what it is for)', () => {
    expect(PRIVATE.test('const parent = (ref as Internal)._parent?.sessionId;')).toBe(true);
    expect(PRIVATE.test('actor._stop();')).toBe(true);
    expect(PRIVATE.test('answer._meta')).toBe(false);
  });
});
