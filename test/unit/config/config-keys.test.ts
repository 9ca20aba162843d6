import { describe, expect, it } from 'vitest';
import {
  BACKOFF_KEYS,
  SERVER_CONFIG_KEYS,
  SERVER_KEY_MAP,
  serverConfigFromSnake,
  toCamelKey,
  toSnakeKey,
} from '../../../src/config/index.js';

describe('the snake_case / camelCase key map', () => {
  it('names every key of McpServerConfig and BackoffConfig exactly once', () => {
    const camel = Object.values(SERVER_KEY_MAP);
    expect(new Set(camel).size).toBe(camel.length);
    expect([...SERVER_CONFIG_KEYS, ...BACKOFF_KEYS].sort()).toEqual([...camel].sort());
  });

  it('agrees with toSnakeKey and toCamelKey', () => {
    for (const [snake, camel] of Object.entries(SERVER_KEY_MAP)) {
      expect(toSnakeKey(camel)).toBe(snake);
      expect(toCamelKey(snake)).toBe(camel);
    }
  });
});

describe('serverConfigFromSnake', () => {
  it('renames the keys of a server entry and of its backoff block', () => {
    expect(
      serverConfigFromSnake({
        name: 'gh',
        command: 'npx',
        start_timeout_ms: 5000,
        max_restarts: 3,
        backoff: { initial_ms: 100, max_ms: 1000, factor: 2 },
      }),
    ).toEqual({ name: 'gh', command: 'npx', startTimeoutMs: 5000, maxRestarts: 3, backoff: { initialMs: 100, maxMs: 1000, factor: 2 } });
  });

  it('leaves env and headers contents alone: their keys are user data', () => {
    const env = { API_KEY: 'k', max_restarts: 'x', period_ms: '1' };
    const headers = { 'X-Api-Key': 'k', initial_ms: 'y' };
    const mapped = serverConfigFromSnake({ name: 'gh', env, headers }) as Record<string, unknown>;
    expect(mapped.env).toEqual({ API_KEY: 'k', max_restarts: 'x', period_ms: '1' });
    expect(mapped.headers).toEqual({ 'X-Api-Key': 'k', initial_ms: 'y' });
  });

  it('passes unknown keys and known camelCase keys through unchanged', () => {
    expect(serverConfigFromSnake({ colour: 1, idle_stop: 2, idleStopMs: 3, initial_ms: 4 })).toEqual({
      colour: 1,
      idle_stop: 2,
      idleStopMs: 3,
      initial_ms: 4,
    });
  });

  it('keeps the snake_case spelling of a key also written in camelCase, so validation reports it', () => {
    expect(serverConfigFromSnake({ max_restarts: 1, maxRestarts: 2 })).toEqual({ max_restarts: 1, maxRestarts: 2 });
  });

  it('never changes its input and returns anything that is not an object as it is', () => {
    const input = { name: 'gh', stderr_lines: 3, backoff: { max_ms: 1 } };
    const before = structuredClone(input);
    serverConfigFromSnake(input);
    expect(input).toEqual(before);
    for (const value of [null, undefined, 3, 'x']) expect(serverConfigFromSnake(value)).toBe(value);
    const list = [1];
    expect(serverConfigFromSnake(list)).toBe(list);
  });
});
