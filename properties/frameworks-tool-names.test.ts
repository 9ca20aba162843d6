/**
 * Tool names as model APIs take them: every model name matches `^[a-zA-Z0-9_-]{1,64}$`, no two
 * names of a set share one, and the mapping reads each back — for any set of names.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MODEL_TOOL_NAME, mapToolNames, modelToolName } from '../src/frameworks/tool-names.js';

// Names as servers and hosts make them, and as an adversary would: slashes, runs of
// underscores, dots, spaces, unicode, empty segments, and names far past 64 characters.
const piece = fc.oneof(
  fc.constantFrom('/', '_', '__', '___', '-', '.', ' ', 'é', '😀', '\u0000', 'a', 'Z', '9'),
  fc.stringMatching(/^[a-z0-9]{1,12}$/),
  fc.string({ maxLength: 6, unit: 'binary' }),
);
// A small alphabet, so that names which a careless mapping would confuse come up often.
const nearName = fc.array(fc.constantFrom('a', 'b', '/', '_', '.', '-'), { minLength: 1, maxLength: 6 }).map((parts) => parts.join(''));
const toolName = fc.oneof(
  nearName,
  fc.array(piece, { maxLength: 14 }).map((parts) => parts.join('')),
  fc.tuple(fc.stringMatching(/^[a-z][a-z0-9_-]{0,40}$/), fc.stringMatching(/^[a-z][a-z0-9_-]{0,40}$/)).map(([s, t]) => `${s}/${t}`),
  fc.string({ maxLength: 100, unit: 'grapheme' }),
);

describe('model tool names', () => {
  it('match the model APIs pattern, differ for different names, and map back', () => {
    fc.assert(
      fc.property(fc.uniqueArray(toolName, { maxLength: 30 }), (names) => {
        const map = mapToolNames(names);
        const seen = new Set<string>();
        for (const name of names) {
          const model = map.modelName(name);
          expect(model).toMatch(MODEL_TOOL_NAME);
          expect(seen.has(model!)).toBe(false);
          seen.add(model!);
          expect(map.actorName(model!)).toBe(name);
        }
        expect(map.entries).toHaveLength(names.length);
      }),
      { numRuns: 100 },
    );
  });

  it('give a tool the same model name whatever other tools the actor has', () => {
    fc.assert(
      fc.property(toolName, fc.uniqueArray(toolName, { maxLength: 20 }), (name, others) => {
        expect(mapToolNames([...others, name]).modelName(name)).toBe(modelToolName(name));
      }),
      { numRuns: 150 },
    );
  });

  it('do not depend on the order the names come in', () => {
    fc.assert(
      fc.property(fc.uniqueArray(toolName, { maxLength: 20 }), (names) => {
        const forward = mapToolNames(names);
        const backward = mapToolNames([...names].reverse());
        for (const name of names) expect(backward.modelName(name)).toBe(forward.modelName(name));
      }),
      { numRuns: 100 },
    );
  });

  it('keep plain server/tool names readable', () => {
    expect(modelToolName('files/read_file')).toBe('files__read_file');
    expect(modelToolName('roster/roster_list-shifts')).toBe('roster__roster_list-shifts');
    expect(modelToolName('agent-skill/review')).toBe('agent-skill__review');
    // Names that would read back two ways, or not fit, are hashed (and marked by `___`).
    expect(modelToolName('a__b')).toMatch(/^a__b___[0-9a-f]{10}$/);
    expect(modelToolName('a/_b')).not.toBe(modelToolName('a_/b'));
    expect(modelToolName('files/read.file')).toMatch(/^files__read_file___[0-9a-f]{10}$/);
    expect(modelToolName(`s/${'x'.repeat(80)}`)).toHaveLength(64);
    expect(modelToolName('')).toMatch(MODEL_TOOL_NAME);
  });
});
