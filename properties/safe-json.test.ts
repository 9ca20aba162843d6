/**
 * The law of `safeJsonCopy` (run on every MCP tool call): for anything JSON can carry it gives
 * what a JSON round trip gives, minus the keys that could reach a prototype, as a fresh copy; for
 * anything else it throws `NotJsonError` naming the path. The faster copy (no path strings for
 * leaves, no set until an object is entered) is checked against the straightforward one it
 * replaced.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NotJsonError, safeJsonCopy, type JsonValue } from '../src/registry/safe-json.js';

/** The copy as it was written first: one path string and one defineProperty per value. */
function referenceCopy(value: unknown, path = '', seen = new Set<object>()): JsonValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new NotJsonError(path, String(value));
    return value;
  }
  if (typeof value !== 'object') throw new NotJsonError(path, `a ${typeof value}`);
  if (seen.has(value)) throw new NotJsonError(path, 'a circular reference');
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item, index) => referenceCopy(item, `${path}/${index}`, seen));
    const copy: { [key: string]: JsonValue } = {};
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      if (key === '__proto__') continue;
      if (key === 'constructor' && typeof item === 'object' && item !== null && 'prototype' in item) continue;
      if (item === undefined) continue;
      Object.defineProperty(copy, key, {
        value: referenceCopy(item, `${path}/${key}`, seen),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  } finally {
    seen.delete(value);
  }
}

const outcome = (copy: () => unknown): { ok: true; value: unknown } | { ok: false; message: string } => {
  try {
    return { ok: true, value: copy() };
  } catch (error) {
    if (!(error instanceof NotJsonError)) throw error;
    return { ok: false, message: error.message };
  }
};

const trickyKey = fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', 'a', 'b');
const leaf = fc.oneof(
  fc.string(),
  fc.double(), // NaN and ±Infinity included: not JSON
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.bigInt(),
  fc.constant(() => 1),
);
const tree = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('node'), { maxLength: 4 }),
  object: fc.array(fc.tuple(fc.oneof(trickyKey, fc.string()), tie('node')), { maxLength: 4 }).map((entries) => {
    const object: Record<string, unknown> = {};
    for (const [key, value] of entries) Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
    return object;
  }),
})).node;

describe('safeJsonCopy', () => {
  it('copies exactly as the reference copy does, and throws the same errors', () => {
    fc.assert(
      fc.property(tree, (value) => {
        expect(outcome(() => safeJsonCopy(value))).toEqual(outcome(() => referenceCopy(value)));
      }),
      { numRuns: 2_000 },
    );
  });

  it('gives a JSON round trip of any JSON value, as a fresh copy with no prototype key', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = safeJsonCopy(value);
        // The JSON round trip, less what the copy drops on purpose: a `__proto__` key, and a
        // `constructor` holding a `prototype` (fc.jsonValue() makes such keys now and then).
        const expected = JSON.parse(JSON.stringify(value), (key, item: unknown) =>
          key === '__proto__' || (key === 'constructor' && typeof item === 'object' && item !== null && 'prototype' in item)
            ? undefined
            : item,
        ) as unknown;
        // Serialized, they are the same text (-0 stays -0 in the copy; JSON spells it 0).
        expect(JSON.stringify(copy)).toBe(JSON.stringify(expected));
        if (typeof value === 'object' && value !== null) expect(copy).not.toBe(value);
      }),
      { numRuns: 5_000 },
    );
  });

  it('keeps the JSON round trip of an object with a __proto__ key, less that key (a case fc.jsonValue() found)', () => {
    const value = JSON.parse('{"__proto__": "", "a": {"__proto__": {"x": 1}, "b": 2}}') as unknown;
    expect(safeJsonCopy(value)).toEqual({ a: { b: 2 } });
  });

  it('drops __proto__ and a constructor holding a prototype, keeps other Object.prototype names as own keys', () => {
    const args = JSON.parse(
      '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}, "toString": "t", "nested": [{"__proto__": {"p": 1}}]}',
    ) as unknown;
    const copy = safeJsonCopy(args) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(['toString', 'nested']);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(copy).toHaveProperty('toString', 't');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys((copy.nested as object[])[0]!)).toEqual([]);
  });

  it('names the path of what JSON cannot carry, a cycle included', () => {
    const cyclic: Record<string, unknown> = { a: { b: [1, 2] } };
    ((cyclic.a as Record<string, unknown>).b as unknown[]).push(cyclic);
    expect(() => safeJsonCopy(cyclic)).toThrow('/a/b/2 is a circular reference');
    expect(() => safeJsonCopy({ x: [0, Number.NaN] })).toThrow('/x/1 is NaN');
    expect(() => safeJsonCopy({ f: () => 1 })).toThrow('/f is a function');
    // The same object twice (not a cycle) is fine.
    const shared = { k: 1 };
    expect(safeJsonCopy({ a: shared, b: [shared] })).toEqual({ a: { k: 1 }, b: [{ k: 1 }] });
  });
});
