/**
 * The JSON Schema (draft-07, for ajv 8) of `McpServerConfig`: types, ranges and allowed keys.
 *
 * Rules that tie two keys together (which transport needs which key, `backoff.maxMs` ≥
 * `backoff.initialMs`) are checked in `validate-server-config.ts`, where they get plain-English
 * messages; the schema alone accepts some configurations the validator rejects.
 */

import { confineSchema } from './confine-setting.js';
import { RESTART_POLICIES, SERVER_CONFIG_DEFAULTS, TRANSPORTS } from './server-config.js';

/**
 * A server name: starts with a letter or digit, then letters, digits, `.`, `_` or `-`
 * (`github`, `fs.home`, `memory_2`). No spaces, slashes or colons.
 */
export const SERVER_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';

/**
 * The longest delay a Node timer can wait (2^31 - 1 ms, about 24.8 days). A longer one fires at
 * once, so every key that becomes a timer is capped here.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** The smallest `maxMessageBytes` accepted (1 KiB): a floor that catches `16` written for 16 MiB. */
export const MIN_MESSAGE_BYTES = 1024;

/** Environment variable names: not empty, no `=`, no NUL (the OS cannot represent them). */
const ENV_NAME_PATTERN = '^[^=\\u0000]+$';
/** HTTP header names: RFC 9110 token characters. */
const HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";

const timerMs = (description: string, fallback: number) =>
  ({ type: 'integer', minimum: 0, maximum: MAX_TIMER_MS, default: fallback, description }) as const;
/** A deadline: 0 would mean "fail at once", never what a person means, so at least 1 ms. */
const deadlineMs = (description: string, fallback: number) =>
  ({ type: 'integer', minimum: 1, maximum: MAX_TIMER_MS, default: fallback, description }) as const;

const defaults = SERVER_CONFIG_DEFAULTS;

/**
 * JSON Schema of one server's configuration, camelCase keys as in TypeScript. Safe to publish
 * (for editors) or to embed in a larger schema.
 *
 * @example
 * import { Ajv } from 'ajv';
 * const isServerConfig = new Ajv().compile(serverConfigSchema);
 */
export const serverConfigSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'McpServerConfig',
  description: 'One MCP server supervised by mcp-actors.',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: {
      type: 'string',
      minLength: 1,
      pattern: SERVER_NAME_PATTERN,
      description: 'Server identifier, unique within a registry: a letter or digit, then letters, digits, ".", "_" or "-".',
    },
    transport: {
      type: 'string',
      enum: TRANSPORTS,
      description: 'Defaults to "stdio" when command is given and to "streamable-http" when url is given.',
    },
    command: { type: 'string', minLength: 1, description: 'stdio: the program to spawn.' },
    args: { type: 'array', items: { type: 'string' }, default: [], description: 'stdio: arguments of command.' },
    env: {
      type: 'object',
      propertyNames: { pattern: ENV_NAME_PATTERN, not: { const: '__proto__' } },
      additionalProperties: { type: 'string', pattern: '^[^\\u0000]*$' },
      default: {},
      description: 'stdio: environment variables added to the small allowlist inherited from the host.',
    },
    cwd: { type: 'string', minLength: 1, description: 'stdio: working directory of the server.' },
    url: {
      type: 'string',
      format: 'uri',
      pattern: '^https?://',
      description: 'sse / streamable-http: the http:// or https:// endpoint of the server.',
    },
    headers: {
      type: 'object',
      propertyNames: { pattern: HEADER_NAME_PATTERN, not: { const: '__proto__' } },
      additionalProperties: { type: 'string', pattern: '^[^\\r\\n\\u0000]*$' },
      default: {},
      description: 'sse / streamable-http: headers sent with every request.',
    },
    sseFallback: {
      type: 'boolean',
      description: 'streamable-http: try the older sse transport when the server answers 4xx to the first POST (default on when transport is left out).',
    },
    restart: {
      type: 'string',
      enum: RESTART_POLICIES,
      default: defaults.restart,
      description: 'OTP restart type: permanent (always), transient (after an abnormal exit), temporary (never).',
    },
    maxRestarts: {
      type: 'integer',
      minimum: 0,
      default: defaults.maxRestarts,
      description: 'At most this many automatic restarts within periodMs, then ERROR.',
    },
    periodMs: {
      type: 'integer',
      minimum: 0,
      default: defaults.periodMs,
      description: 'The window of the restart intensity, in milliseconds.',
    },
    backoff: {
      type: 'object',
      additionalProperties: false,
      default: defaults.backoff,
      description: 'Delay before an automatic restart: initialMs * factor^(restarts in window), at most maxMs.',
      properties: {
        initialMs: timerMs('Delay before the first automatic restart in a window.', defaults.backoff.initialMs),
        maxMs: timerMs('Upper bound of any delay; at least initialMs.', defaults.backoff.maxMs),
        factor: { type: 'number', minimum: 1, default: defaults.backoff.factor, description: 'Growth per restart.' },
        jitter: {
          type: 'number',
          minimum: 0,
          maximum: 1,
          default: defaults.backoff.jitter,
          description: 'Fraction (0..1) of the delay that is randomised.',
        },
      },
    },
    startTimeoutMs: deadlineMs('Spawn-to-initialized deadline (the startup probe).', defaults.startTimeoutMs),
    callTimeoutMs: deadlineMs('Default deadline of a call, waiting for a start included.', defaults.callTimeoutMs),
    shutdownTimeoutMs: timerMs('Budget for a clean stop before SIGKILL.', defaults.shutdownTimeoutMs),
    idleStopMs: timerMs('Stop the server after this long with no call in flight; 0 = never.', defaults.idleStopMs),
    pingIntervalMs: timerMs('Ping the running server this often; 0 = off.', defaults.pingIntervalMs),
    maxMessageBytes: {
      type: 'integer',
      minimum: MIN_MESSAGE_BYTES,
      default: defaults.maxMessageBytes,
      description: 'stdio: a longer single message closes the connection.',
    },
    stderrLines: {
      type: 'integer',
      minimum: 0,
      default: defaults.stderrLines,
      description: "stdio: how many of the server's last stderr lines to keep for error messages.",
    },
    trusted: {
      type: 'boolean',
      default: defaults.trusted,
      description: "Whether the server's tool annotations are believed in full.",
    },
    roots: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      default: [],
      description: 'Directories offered to the server as MCP roots (absolute paths).',
    },
    confine: confineSchema,
  },
} as const;

export type ServerConfigSchema = typeof serverConfigSchema;
