/**
 * The one description of a server entry: its JSON Schema, in the file's snake_case keys, with
 * every default. The TypeScript types are derived from it (keys in camelCase), so adding a key
 * here adds it everywhere: validation, defaults, the types, the messages and the editors' schema.
 */

import { confineSchema } from './confine-setting.js';
import { type Input, type Output, toApiKeys } from './file-keys.js';

export const TRANSPORTS = ['stdio', 'sse', 'streamable-http'] as const;
export type TransportKind = (typeof TRANSPORTS)[number];
/** OTP's restart types: `permanent` always, `transient` only after an abnormal exit, `temporary` never. */
export const RESTART_POLICIES = ['permanent', 'transient', 'temporary'] as const;
export type RestartPolicy = (typeof RESTART_POLICIES)[number];

/** A name: a letter or digit, then letters, digits, `.`, `_` or `-` (`github`, `fs.home`). */
export const SERVER_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';
/** The longest delay a Node timer can wait (2^31 - 1 ms, about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

const timer = (fallback: number, description: string, minimum = 0) =>
  ({ type: 'integer', minimum, maximum: MAX_TIMER_MS, default: fallback, description }) as const;
/** A name: `what` says what it names, in the messages and the editors. */
export const nameSchema = <What extends string>(what: What) =>
  ({
    type: 'string',
    minLength: 1,
    pattern: SERVER_NAME_PATTERN,
    description: `${what}: letters, digits, ".", "_" and "-", starting with a letter or digit`,
    examples: ['github'],
  }) as const;
/** User data keyed by name: `names` says what a name is, `values` what a value must be, both for the messages. */
const record = (
  names: Readonly<Record<string, string>>,
  values: Readonly<Record<string, string>>,
  example: Readonly<Record<string, string>>,
  description: string,
) =>
  ({
    type: 'object',
    propertyNames: { ...names, not: { const: '__proto__' } },
    additionalProperties: { type: 'string', ...values },
    default: {},
    examples: [example],
    description,
  }) as const;

/**
 * JSON Schema (draft-07) of one server entry, keys as in agents.yaml; descriptions are also the
 * messages' words (see problem-text.ts). Rules that tie keys together (which transport needs which
 * key, `backoff.max_ms` ≥ `initial_ms`) are checked in `server-config.ts`.
 */
export const serverConfigSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'server',
  description: 'One MCP server supervised by mcp-actors.',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: nameSchema('a server name'),
    transport: {
      type: 'string',
      enum: TRANSPORTS,
      description:
        'How to reach the server. stdio: spawn command; sse: the older HTTP transport; streamable-http: the current MCP transport over HTTP (WebSocket is not supported). Default: stdio when command is given, streamable-http when url is.',
    },
    command: { type: 'string', minLength: 1, examples: ['npx'], description: 'stdio: the program to spawn.' },
    args: { type: 'array', items: { type: 'string' }, default: [], description: 'stdio: arguments of command.' },
    env: record(
      {
        title: 'an environment variable',
        pattern: '^[^=\\u0000]+$',
        description: 'environment variable names must not be empty or contain "="',
      },
      { pattern: '^[^\\u0000]*$', description: 'a value without NUL characters' },
      { API_KEY: '${API_KEY}' },
      'stdio: variables added to the inherited allowlist.',
    ),
    cwd: { type: 'string', minLength: 1, description: "stdio: working directory (default: the file's folder)." },
    url: { type: 'string', format: 'uri', pattern: '^https?://[^/?#\\s]+', description: 'sse / streamable-http: the http(s) endpoint.' },
    headers: record(
      {
        title: 'an HTTP header',
        pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
        description: "header names use letters, digits and !#$%&'*+.^_`|~- only",
      },
      { pattern: '^[^\\r\\n\\u0000]*$', description: 'a value on one line, without line breaks or NUL characters' },
      { Authorization: 'Bearer ${TOKEN}' },
      'sse / streamable-http: sent with every request.',
    ),
    sse_fallback: {
      type: 'boolean',
      description: 'streamable-http: try sse on a 4xx to the first POST (default on when transport is left out).',
    },
    restart: {
      type: 'string',
      enum: RESTART_POLICIES,
      default: 'permanent',
      description:
        "OTP's restart types. permanent: always restart; transient: restart only after an abnormal exit; temporary: never restart.",
    },
    max_restarts: {
      type: 'integer',
      minimum: 0,
      default: 5,
      description: 'At most this many automatic restarts within period_ms. Write 0 to never restart automatically.',
    },
    period_ms: { type: 'integer', minimum: 0, default: 60_000, description: 'The window of the restart intensity.' },
    backoff: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'Delay before an automatic restart: initial_ms * factor^(restarts in window), at most max_ms.',
      properties: {
        initial_ms: timer(200, 'Delay before the first automatic restart in a window.'),
        max_ms: timer(10_000, 'Upper bound of any delay; at least initial_ms.'),
        factor: {
          type: 'number',
          minimum: 1,
          default: 2,
          description: 'Growth per restart. Write 1 for a constant delay, or 2 to double it after each restart.',
        },
        jitter: {
          type: 'number',
          minimum: 0,
          maximum: 1,
          default: 0.2,
          description:
            'Up to this fraction of the delay is taken off at random. Write a fraction such as 0.2 (a fifth of each delay is random).',
        },
      },
    },
    start_timeout_ms: timer(30_000, 'Spawn-to-initialized deadline.', 1),
    call_timeout_ms: timer(60_000, 'Default deadline of a call, waiting for a start included.', 1),
    shutdown_timeout_ms: timer(4_000, 'Budget for a clean stop before SIGKILL.'),
    idle_stop_ms: timer(0, 'Stop the server after this long with no call in flight. Write 0 to never stop an idle server.'),
    ping_interval_ms: timer(0, 'Ping the running server this often. Write 0 to turn pinging off.'),
    max_message_bytes: {
      type: 'integer',
      minimum: 1024, // 1 KiB: a floor that catches `16` written for 16 MiB
      default: 16 * 1024 * 1024,
      description: 'stdio: a longer message closes the connection. Write a size in bytes such as 16777216 (16 MiB, the default).',
    },
    stderr_lines: {
      type: 'integer',
      minimum: 0,
      default: 40,
      description: "stdio: how many of the server's last stderr lines to keep. Write 0 to keep none.",
    },
    trusted: { type: 'boolean', default: false, description: "Whether the server's tool annotations are believed in full." },
    roots: { type: 'array', items: { type: 'string', minLength: 1 }, default: [], description: 'Directories offered as MCP roots.' },
    confine: confineSchema,
  },
} as const;

type Properties = (typeof serverConfigSchema)['properties'];
type BackoffProperties = Properties['backoff']['properties'];

/** What a host writes for one server (camelCase keys; see `serverConfigSchema` for each). Only `name` and an endpoint are required. */
export type McpServerConfig = Input<Properties> & { readonly name: string };
/** A validated configuration with every default filled in, frozen: what the machines and actors use. */
export type ResolvedServerConfig = Output<Properties> & { readonly name: string; readonly transport: TransportKind };
export type BackoffConfig = Output<BackoffProperties>;

const allDefaults = Object.entries(toApiKeys({}, serverConfigSchema, true) as object);
/** Every default but the empty lists and records (`args`, `env`, `headers`, `roots`), read from the schema. */
export const SERVER_CONFIG_DEFAULTS = Object.freeze(
  Object.fromEntries(allDefaults.filter(([key]) => !['args', 'env', 'headers', 'roots'].includes(key))),
) as Readonly<
  Omit<
    ResolvedServerConfig,
    'name' | 'transport' | 'command' | 'cwd' | 'url' | 'sseFallback' | 'confine' | 'args' | 'env' | 'headers' | 'roots'
  >
>;
