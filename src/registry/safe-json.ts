/**
 * Copies tool arguments through a safe parse: only JSON values survive, and keys that could
 * reach a prototype (`__proto__`, and `constructor` holding a `prototype`) are dropped, so nothing
 * downstream — validation, path rewriting, an in-process tool — can be polluted through them.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export class NotJsonError extends Error {
  constructor(
    readonly path: string,
    what: string,
  ) {
    super(`${path || '(arguments)'} is ${what}, which JSON cannot carry`);
    this.name = 'NotJsonError';
  }
}

export function safeJsonCopy(value: unknown, path = '', seen?: Set<object>): JsonValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new NotJsonError(path, String(value));
    return value;
  }
  if (typeof value !== 'object') throw new NotJsonError(path, `a ${typeof value}`);
  // This runs on every tool call: the set of objects on the way down is made only once needed,
  // and a path is spelled out only for a nested object (or an error).
  if (seen === undefined) seen = new Set();
  else if (seen.has(value)) throw new NotJsonError(path, 'a circular reference');
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      const copy: JsonValue[] = new Array<JsonValue>(value.length);
      for (let index = 0; index < value.length; index += 1) {
        const item: unknown = value[index];
        if (item === undefined && !(index in value)) continue; // a hole stays a hole, as with map()
        copy[index] = childCopy(item, path, index, seen);
      }
      return copy;
    }
    const copy: { [key: string]: JsonValue } = {};
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      if (key === '__proto__') continue;
      if (key === 'constructor' && typeof item === 'object' && item !== null && 'prototype' in item) continue;
      if (item === undefined) continue;
      const copied = childCopy(item, path, key, seen);
      // A key Object.prototype also has (toString, constructor) is defined, not assigned: with a
      // frozen prototype an assignment would throw.
      if (key in Object.prototype)
        Object.defineProperty(copy, key, { value: copied, enumerable: true, writable: true, configurable: true });
      else copy[key] = copied;
    }
    return copy;
  } finally {
    seen.delete(value);
  }
}

function childCopy(item: unknown, path: string, key: string | number, seen: Set<object>): JsonValue {
  if (item === null || typeof item === 'boolean' || typeof item === 'string') return item;
  if (typeof item === 'number' && Number.isFinite(item)) return item;
  return safeJsonCopy(item, `${path}/${key}`, seen);
}
