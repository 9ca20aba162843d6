/**
 * The one place where the snake_case keys of the YAML file (`agents.yaml`, as in the source
 * documents) meet the camelCase keys of TypeScript. Every other module speaks camelCase.
 */

import type { BackoffConfig, McpServerConfig } from './server-config.js';

/** Keys of a server entry: snake_case (YAML) → camelCase (TypeScript). Single words are unchanged. */
export const SERVER_TOP_LEVEL_KEY_MAP = {
  name: 'name',
  transport: 'transport',
  command: 'command',
  args: 'args',
  env: 'env',
  cwd: 'cwd',
  url: 'url',
  headers: 'headers',
  sse_fallback: 'sseFallback',
  restart: 'restart',
  max_restarts: 'maxRestarts',
  period_ms: 'periodMs',
  backoff: 'backoff',
  start_timeout_ms: 'startTimeoutMs',
  call_timeout_ms: 'callTimeoutMs',
  shutdown_timeout_ms: 'shutdownTimeoutMs',
  idle_stop_ms: 'idleStopMs',
  ping_interval_ms: 'pingIntervalMs',
  max_message_bytes: 'maxMessageBytes',
  stderr_lines: 'stderrLines',
  trusted: 'trusted',
  roots: 'roots',
  confine: 'confine',
} as const satisfies Record<string, keyof McpServerConfig>;

/** Keys of the nested `backoff` block: snake_case → camelCase. */
export const BACKOFF_KEY_MAP = {
  initial_ms: 'initialMs',
  max_ms: 'maxMs',
  factor: 'factor',
  jitter: 'jitter',
} as const satisfies Record<string, keyof BackoffConfig>;

/** Every key a server entry may contain, at any level: snake_case → camelCase. */
export const SERVER_KEY_MAP = { ...SERVER_TOP_LEVEL_KEY_MAP, ...BACKOFF_KEY_MAP } as const;

export type ServerConfigKey = (typeof SERVER_TOP_LEVEL_KEY_MAP)[keyof typeof SERVER_TOP_LEVEL_KEY_MAP];
export type BackoffKey = (typeof BACKOFF_KEY_MAP)[keyof typeof BACKOFF_KEY_MAP];

/** The camelCase keys of a server entry, in the order the README documents them. */
export const SERVER_CONFIG_KEYS: readonly ServerConfigKey[] = Object.freeze(Object.values(SERVER_TOP_LEVEL_KEY_MAP));
/** The camelCase keys of `backoff`. */
export const BACKOFF_KEYS: readonly BackoffKey[] = Object.freeze(Object.values(BACKOFF_KEY_MAP));

/** `startTimeoutMs` → `start_timeout_ms`. Works for any camelCase word, known or not. */
export function toSnakeKey(camel: string): string {
  return camel.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** `start_timeout_ms` → `startTimeoutMs`. Works for any snake_case word, known or not. */
export function toCamelKey(snake: string): string {
  return snake.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * Renames the snake_case keys of one server entry (and of its `backoff` block) to camelCase, for
 * `validateServerConfig`. The input is never changed.
 *
 * - `env` and `headers` are user data (`API_KEY`, `X-Api-Key`): their contents are left as they are.
 * - A key that is neither a known snake_case key nor a known camelCase key is passed through
 *   unchanged, so validation reports it with a suggestion.
 * - A key written both ways (`max_restarts` and `maxRestarts`) keeps its snake_case spelling, so
 *   validation reports the duplicate instead of one silently winning.
 *
 * @example
 * validateServerConfig(serverConfigFromSnake(yaml.servers.github), {
 *   pathPrefix: 'servers.github',
 *   keyStyle: 'snake_case',
 * });
 */
export function serverConfigFromSnake(input: unknown): unknown {
  if (!isRecord(input)) return input;
  return renameKeys(input, SERVER_TOP_LEVEL_KEY_MAP, (camel, value) =>
    camel === 'backoff' && isRecord(value) ? renameKeys(value, BACKOFF_KEY_MAP, (_, inner) => inner) : value,
  );
}

function renameKeys(
  input: Record<string, unknown>,
  map: Readonly<Record<string, string>>,
  mapValue: (camelKey: string, value: unknown) => unknown,
): Record<string, unknown> {
  const keys = Object.keys(input);
  const present = new Set(keys);
  const entries: [string, unknown][] = keys.map((key) => {
    const camel = Object.hasOwn(map, key) ? map[key] : undefined;
    const target = camel !== undefined && (camel === key || !present.has(camel)) ? camel : key;
    return [target, mapValue(target, input[key])];
  });
  // Object.fromEntries defines own properties, so a `__proto__` key stays data and reaches validation.
  return Object.fromEntries(entries);
}

/** A non-null, non-array object, whose own keys can be read. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
