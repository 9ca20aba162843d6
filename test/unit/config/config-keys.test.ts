import { describe, expect, it } from 'vitest';
import { fromApiKeys, toApiKeys } from '../../../src/config/file-keys.js';
import { serverConfigSchema, toCamelKey, toSnakeKey } from '../../../src/config/index.js';

const schemaKeys = [...Object.keys(serverConfigSchema.properties), ...Object.keys(serverConfigSchema.properties.backoff.properties)];

describe('the boundary between file keys (snake_case) and TypeScript keys (camelCase)', () => {
  it('spells every key of the schema both ways and back', () => {
    for (const snake of schemaKeys) expect(toSnakeKey(toCamelKey(snake))).toBe(snake);
    expect(new Set(schemaKeys.map(toCamelKey)).size).toBe(new Set(schemaKeys).size);
  });

  it('renames the keys of a server entry and of its backoff block', () => {
    const input = { name: 'gh', command: 'npx', startTimeoutMs: 5000, maxRestarts: 3, backoff: { initialMs: 100, maxMs: 1000, factor: 2 } };
    const { value, problems } = fromApiKeys(input, serverConfigSchema, 'camelCase');
    expect(problems).toEqual([]);
    expect(value).toEqual({
      name: 'gh',
      command: 'npx',
      start_timeout_ms: 5000,
      max_restarts: 3,
      backoff: { initial_ms: 100, max_ms: 1000, factor: 2 },
    });
    expect(toApiKeys(value, serverConfigSchema)).toEqual(input);
    expect(Object.isFrozen((toApiKeys(value, serverConfigSchema) as { backoff: object }).backoff)).toBe(true);
  });

  it('leaves env and headers contents alone: their keys are user data', () => {
    const env = { API_KEY: 'k', maxRestarts: 'x', period_ms: '1' };
    const headers = { 'X-Api-Key': 'k', initialMs: 'y' };
    const { value } = fromApiKeys({ name: 'gh', env, headers }, serverConfigSchema, 'camelCase');
    expect(value).toEqual({ name: 'gh', env, headers });
    expect(toApiKeys({ env: { max_restarts: '1' } }, serverConfigSchema)).toEqual({ env: { max_restarts: '1' } });
  });

  it('passes unknown keys through, for validation to report with a suggestion', () => {
    expect(fromApiKeys({ colour: 1, idleStop: 2 }, serverConfigSchema, 'camelCase').value).toEqual({ colour: 1, idleStop: 2 });
  });

  it('refuses a snake_case key in TypeScript input, and a key written both ways where both spellings are accepted', () => {
    expect(fromApiKeys({ max_restarts: 1 }, serverConfigSchema, 'camelCase').problems).toEqual([
      { path: ['max_restarts'], problem: 'is not a known key', hint: 'write "maxRestarts" (snake_case keys belong in agents.yaml)' },
    ]);
    expect(fromApiKeys({ max_restarts: 1, maxRestarts: 2 }, serverConfigSchema, 'both')).toEqual({
      value: { max_restarts: 1 },
      problems: [
        {
          path: ['maxRestarts'],
          problem: 'repeats "max_restarts", which is also given',
          hint: 'keep only one of "maxRestarts" and "max_restarts"',
        },
      ],
    });
  });

  it('never changes its input and returns anything that is not an object as it is', () => {
    const input = { name: 'gh', stderrLines: 3, backoff: { maxMs: 1 } };
    const before = structuredClone(input);
    fromApiKeys(input, serverConfigSchema, 'camelCase');
    expect(input).toEqual(before);
    for (const value of [null, undefined, 3, 'x']) expect(fromApiKeys(value, serverConfigSchema, 'camelCase').value).toBe(value);
  });
});
