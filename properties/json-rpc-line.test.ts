/**
 * The law of `parseMessageLine` (run on every line a stdio server writes): it accepts and refuses
 * exactly the lines the SDK's `deserializeMessage` does, and what it gives equals what the SDK
 * gives. Only its shortcuts for plain result responses and plain notifications are its own; the
 * lines are drawn to sit on both sides of their edges (extra keys, a `_meta`, ids that are not
 * integers, results or params that are not objects, an id on a notification).
 */
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMessageLine } from '../src/server/json-rpc-line.js';

type Outcome = { ok: true; value: unknown } | { ok: false };
const outcome = (parse: (line: string) => unknown, line: string): Outcome => {
  try {
    return { ok: true, value: parse(line) };
  } catch {
    return { ok: false };
  }
};

const absent = Symbol('absent');
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof(fc.constant(absent), arbitrary);
const id = fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null), fc.boolean());
const result = fc.oneof(
  fc.dictionary(fc.string(), fc.jsonValue()),
  fc.record({ content: fc.array(fc.record({ type: fc.constant('text'), text: fc.string() })) }),
  fc.record({ _meta: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue()) }),
  fc.jsonValue(),
);
const error = fc.oneof(fc.record({ code: fc.oneof(fc.integer(), fc.double()), message: fc.string() }), fc.jsonValue());
const message = fc
  .record({
    jsonrpc: maybe(fc.constantFrom('2.0', '1.0', 2)),
    id: maybe(id),
    result: maybe(result),
    error: maybe(error),
    method: maybe(fc.oneof(fc.constantFrom('tools/call', 'notifications/progress'), fc.string(), fc.integer())),
    params: maybe(fc.dictionary(fc.string(), fc.jsonValue())),
    extra: maybe(fc.jsonValue()),
    __proto__: maybe(fc.jsonValue()),
  })
  .map((fields) => {
    const entries = Object.entries(fields).filter(([, value]) => value !== absent);
    // JSON.stringify would drop a `__proto__` own key; write it out by hand.
    return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`;
  });
// On the shortcut's edge: a result response as the shortcut takes it, or one detail off.
const nearResult = fc
  .record({ id: fc.oneof(fc.integer(), fc.constantFrom(2 ** 53, -(2 ** 53), 1.5), fc.string()), result, extra: maybe(fc.jsonValue()) })
  .map(({ id: value, result: body, extra }) =>
    JSON.stringify({ jsonrpc: '2.0', id: value, result: body, ...(extra === absent ? {} : { extra }) }),
  );
// On the notification shortcut's edge: a notification as it takes it, or one detail off.
const nearNotification = fc
  .record({
    method: fc.oneof(fc.constantFrom('notifications/tools/list_changed', 'notifications/message', ''), fc.string(), fc.integer()),
    params: maybe(fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.record({ _meta: fc.jsonValue() }), fc.jsonValue())),
    id: maybe(id),
    extra: maybe(fc.jsonValue()),
  })
  .map(({ method, params, id: value, extra }) =>
    JSON.stringify({
      jsonrpc: '2.0',
      method,
      ...(params === absent ? {} : { params }),
      ...(value === absent ? {} : { id: value }),
      ...(extra === absent ? {} : { extra }),
    }),
  );
const line = fc.oneof(message, nearResult, nearNotification, fc.json(), fc.string());

describe('parseMessageLine', () => {
  it('accepts and refuses what deserializeMessage does, and gives the same message', () => {
    fc.assert(
      fc.property(line, (text) => {
        const ours = outcome(parseMessageLine, text);
        const sdk = outcome(deserializeMessage, text);
        expect(ours.ok).toBe(sdk.ok);
        if (ours.ok && sdk.ok) expect(ours.value).toEqual(sdk.value);
      }),
      { numRuns: 3_000 },
    );
  });

  it('takes a plain result response without the zod union, and a result with _meta through it', () => {
    const plain = '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"m1"}]}}';
    expect(parseMessageLine(plain)).toEqual(deserializeMessage(plain));
    expect(() => parseMessageLine('{"jsonrpc":"2.0","id":7,"result":{"_meta":5}}')).toThrow();
    expect(() => parseMessageLine('{"jsonrpc":"2.0","id":7.5,"result":{}}')).toThrow();
    expect(() => parseMessageLine('{"jsonrpc":"2.0","id":7,"result":{},"extra":1}')).toThrow();
    expect(() => parseMessageLine('not json')).toThrow();
  });

  it('takes a plain notification without the zod union, and one with _meta or an extra key through it', () => {
    for (const plain of [
      '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}',
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}',
    ]) {
      expect(parseMessageLine(plain)).toEqual(deserializeMessage(plain));
    }
    expect(parseMessageLine('{"jsonrpc":"2.0","method":"n","params":{"_meta":{"progressToken":1}}}')).toEqual({
      jsonrpc: '2.0',
      method: 'n',
      params: { _meta: { progressToken: 1 } },
    });
    expect(() => parseMessageLine('{"jsonrpc":"2.0","method":"n","params":{"_meta":{"progressToken":true}}}')).toThrow();
    expect(() => parseMessageLine('{"jsonrpc":"2.0","method":"n","params":[1]}')).toThrow();
    expect(() => parseMessageLine('{"jsonrpc":"2.0","method":"n","extra":1}')).toThrow();
    expect(() => parseMessageLine('{"jsonrpc":"2.0","method":5}')).toThrow();
  });

  it('gives a result naming a __proto__ key as the SDK does (found by the property above, seed 1011871362)', () => {
    for (const text of [
      '{"jsonrpc":"2.0","id":"","result":{"__proto__":0}}',
      '{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"polluted":true}}}',
      '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x","__proto__":{"isError":true}}]}}',
      '{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"a":{"__proto__":1}}}}',
    ]) {
      const ours = outcome(parseMessageLine, text);
      const sdk = outcome(deserializeMessage, text);
      expect(ours.ok).toBe(sdk.ok);
      if (ours.ok && sdk.ok) {
        expect(ours.value).toEqual(sdk.value);
        expect(Object.getPrototypeOf((ours.value as { result: object }).result)).toBe(
          Object.getPrototypeOf((sdk.value as { result: object }).result),
        );
      }
    }
  });
});
