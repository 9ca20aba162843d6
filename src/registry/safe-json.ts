/**
 * Copies tool arguments through a safe parse: only JSON values survive, and keys that could
 * reach a prototype (`__proto__`, and `constructor` holding a `prototype`) are dropped, so nothing
 * downstream — validation, path rewriting, an in-process tool — can be polluted through them.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export class NotJsonError extends Error {
  constructor(readonly path: string, what: string) {
    super(`${path || '(arguments)'} is ${what}, which JSON cannot carry`);
    this.name = 'NotJsonError';
  }
}

export function safeJsonCopy(value: unknown, path = '', seen = new Set<object>()): JsonValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new NotJsonError(path, String(value));
    return value;
  }
  if (typeof value !== 'object') throw new NotJsonError(path, `a ${typeof value}`);
  if (seen.has(value)) throw new NotJsonError(path, 'a circular reference');
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item, index) => safeJsonCopy(item, `${path}/${index}`, seen));
    const copy: { [key: string]: JsonValue } = {};
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      if (key === '__proto__') continue;
      if (key === 'constructor' && typeof item === 'object' && item !== null && 'prototype' in item) continue;
      if (item === undefined) continue;
      Object.defineProperty(copy, key, {
        value: safeJsonCopy(item, `${path}/${key}`, seen),
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
