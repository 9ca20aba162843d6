export * from './server-config.js';
export {
  validateServerConfig,
  type ValidateServerConfigOptions,
} from './validate-server-config.js';
export {
  serverConfigSchema,
  type ServerConfigSchema,
  SERVER_NAME_PATTERN,
  MAX_TIMER_MS,
  MIN_MESSAGE_BYTES,
} from './server-config-schema.js';
export {
  SERVER_KEY_MAP,
  SERVER_TOP_LEVEL_KEY_MAP,
  BACKOFF_KEY_MAP,
  SERVER_CONFIG_KEYS,
  BACKOFF_KEYS,
  type ServerConfigKey,
  type BackoffKey,
  serverConfigFromSnake,
  toSnakeKey,
  toCamelKey,
} from './config-keys.js';
export type { KeyStyle } from './problem-text.js';
