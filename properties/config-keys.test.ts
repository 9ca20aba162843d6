import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromApiKeys } from '../src/config/file-keys.js';
import { type KeyStyle, RESTART_POLICIES, serverConfigSchema, toCamelKey, toSnakeKey, validateServerConfig } from '../src/config/index.js';
import { isConfigError } from '../src/errors/index.js';

const KNOWN_SNAKE_KEYS = [...Object.keys(serverConfigSchema.properties), ...Object.keys(serverConfigSchema.properties.backoff.properties)];
const KNOWN_CAMEL_KEYS = KNOWN_SNAKE_KEYS.map(toCamelKey);

/** What validation made of an input: the resolved config, or the key paths of the problems it listed (in camelCase). */
function outcome(input: unknown, keyStyle: KeyStyle = 'camelCase'): unknown {
  try {
    return { ok: validateServerConfig(input, { keyStyle }) };
  } catch (error) {
    if (isConfigError(error)) return { problems: error.problems.map((p) => p.path.split('.').map(toCamelKey).join('.')).sort() };
    throw error;
  }
}

/** The snake_case twin of a camelCase server entry, as a person would write it in agents.yaml. */
function toSnakeConfig(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => {
      if (key === 'backoff' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
        return [key, Object.fromEntries(Object.entries(value).map(([inner, v]) => [toSnakeKey(inner), v]))];
      }
      return [toSnakeKey(key), value];
    }),
  );
}

const envName = fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,8}$/);
const headerName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,8}$/);
const plainString = fc.string({ maxLength: 12 }).filter((s) => !/[\r\n\0]/.test(s));
const timer = fc.nat({ max: 100_000 });

const validCommon = {
  restart: fc.constantFrom(...RESTART_POLICIES),
  maxRestarts: fc.nat({ max: 20 }),
  periodMs: timer,
  backoff: fc.record(
    {
      initialMs: fc.nat({ max: 1000 }),
      maxMs: fc.integer({ min: 1000, max: 100_000 }),
      factor: fc.double({ min: 1, max: 4, noNaN: true }),
      jitter: fc.double({ min: 0, max: 1, noNaN: true }),
    },
    { requiredKeys: [] },
  ),
  startTimeoutMs: fc.integer({ min: 1, max: 100_000 }),
  callTimeoutMs: fc.integer({ min: 1, max: 100_000 }),
  shutdownTimeoutMs: timer,
  idleStopMs: timer,
  pingIntervalMs: timer,
  maxMessageBytes: fc.integer({ min: 1024, max: 1 << 26 }),
  stderrLines: fc.nat({ max: 200 }),
  trusted: fc.boolean(),
  roots: fc.array(fc.constantFrom('/srv/project', '/tmp/sandbox'), { maxLength: 2 }),
};

const name = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,10}$/);

const validStdio = fc.record(
  {
    name,
    transport: fc.constant('stdio'),
    command: fc.constantFrom('npx', 'node', '/usr/bin/env'),
    args: fc.array(plainString, { maxLength: 4 }),
    env: fc.dictionary(envName, plainString, { maxKeys: 4 }),
    cwd: fc.constantFrom('/tmp', '.'),
    ...validCommon,
  },
  { requiredKeys: ['name', 'command'] },
);

const validHttp = fc.record(
  {
    name,
    transport: fc.constantFrom('sse', 'streamable-http'),
    url: fc.constantFrom('http://localhost:3000/mcp', 'https://example.com/sse'),
    headers: fc.dictionary(headerName, plainString, { maxKeys: 4 }),
    ...validCommon,
  },
  { requiredKeys: ['name', 'url'] },
);

const validConfig: fc.Arbitrary<Record<string, unknown>> = fc.oneof(validStdio, validHttp);

/** Configurations with mistakes mixed in: wrong types, out of range, unknown keys, missing endpoint. */
const anyConfig: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    name: fc.oneof(name, fc.constantFrom('', 'my server', 42)),
    transport: fc.constantFrom('stdio', 'sse', 'streamable-http', 'http'),
    command: fc.constantFrom('npx', '', 7),
    args: fc.array(fc.oneof(plainString, fc.integer()), { maxLength: 3 }),
    env: fc.dictionary(fc.oneof(envName, fc.constantFrom('A=B', 'max_restarts')), fc.oneof(plainString, fc.integer()), { maxKeys: 3 }),
    url: fc.constantFrom('http://localhost:3000/mcp', 'localhost:3000', 'ws://h'),
    restart: fc.constantFrom('permanent', 'always', 'transiant'),
    maxRestarts: fc.oneof(fc.integer({ min: -3, max: 10 }), fc.constant('5')),
    backoff: fc.record(
      {
        initialMs: fc.integer({ min: -10, max: 20_000 }),
        maxMs: fc.integer({ min: -10, max: 20_000 }),
        factor: fc.constantFrom(0.5, 1, 2),
        jitter: fc.constantFrom(0, 0.2, 2, 20),
        speed: fc.constant(1),
      },
      { requiredKeys: [] },
    ),
    startTimeoutMs: fc.oneof(timer, fc.constantFrom(-1, 1.5, '5000', '30s', null)),
    maxMessageBytes: fc.constantFrom(16, 1024, '16MB'),
    trusted: fc.constantFrom(true, 'yes'),
    colour: fc.constant('blue'),
  },
  { requiredKeys: [] },
);

describe('the snake_case / camelCase key map (properties)', () => {
  it('round-trips every known key camel → snake → camel, and the table agrees', () => {
    fc.assert(
      fc.property(fc.constantFrom(...KNOWN_CAMEL_KEYS), (camel) => {
        const snake = toSnakeKey(camel);
        expect(toCamelKey(snake)).toBe(camel);
        expect(KNOWN_SNAKE_KEYS).toContain(snake);
      }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...KNOWN_SNAKE_KEYS), (snake) => {
        expect(toSnakeKey(toCamelKey(snake))).toBe(snake);
      }),
    );
  });

  it('round-trips any camelCase word, known or not', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z][a-z0-9]*([A-Z][a-z0-9]+)*$/), (camel) => {
        expect(toCamelKey(toSnakeKey(camel))).toBe(camel);
      }),
    );
  });

  it('never changes the contents of env or headers', () => {
    const userKey = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...KNOWN_SNAKE_KEYS, ...KNOWN_CAMEL_KEYS));
    const record = fc.dictionary(userKey, fc.string({ maxLength: 8 }), { maxKeys: 6 });
    fc.assert(
      fc.property(record, record, (env, headers) => {
        const envBefore = structuredClone({ ...env });
        const headersBefore = structuredClone({ ...headers });
        const mapped = fromApiKeys({ name: 'x', env, headers, maxRestarts: 1 }, serverConfigSchema, 'camelCase').value as Record<
          string,
          unknown
        >;
        expect(Object.keys(mapped.env as object)).toEqual(Object.keys(envBefore));
        expect(Object.keys(mapped.headers as object)).toEqual(Object.keys(headersBefore));
        expect({ ...(mapped.env as object) }).toEqual(envBefore);
        expect({ ...(mapped.headers as object) }).toEqual(headersBefore);
      }),
    );
  });

  it('validates a file entry (snake_case) exactly as the same config in TypeScript (camelCase)', () => {
    fc.assert(
      fc.property(validConfig, (camel) => {
        const viaSnake = outcome(toSnakeConfig(camel), 'snake_case');
        expect(viaSnake).toEqual(outcome(camel));
        expect(viaSnake).toHaveProperty('ok');
      }),
    );
    fc.assert(
      fc.property(anyConfig, (camel) => {
        expect(outcome(toSnakeConfig(camel), 'snake_case')).toEqual(outcome(camel));
      }),
    );
  });

  it('always either resolves or lists at least one problem, whatever it is given', () => {
    fc.assert(
      fc.property(fc.oneof(anyConfig, fc.anything()), (input) => {
        const result = outcome(input) as { ok?: unknown; problems?: readonly unknown[] };
        if (result.problems) expect(result.problems.length).toBeGreaterThan(0);
        else expect(Object.isFrozen(result.ok)).toBe(true);
      }),
    );
  });
});

describe('validateServerConfig on its own output', () => {
  it('accepts a resolved configuration and returns it unchanged (idempotent)', () => {
    fc.assert(
      fc.property(validConfig, (input) => {
        const once = validateServerConfig(input);
        expect(validateServerConfig(once)).toEqual(once);
      }),
    );
  });
});
