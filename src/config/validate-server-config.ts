/**
 * `validateServerConfig`: checks one server's configuration against `serverConfigSchema` and the
 * rules that tie keys together, reports every mistake at once, and fills in every default.
 */

import { sharedAjv } from '../registry/json-schema-validators.js';
import { ConfigError, type ConfigProblem } from '../errors/index.js';
import { isRecord } from './config-keys.js';
import { type FoundProblem, type KeyNamer, type KeyStyle, keyNamer, renderPath, show } from './problem-text.js';
import { isHttpUrl, problemsFromAjv, urlProblem } from './schema-problems.js';
import { serverConfigSchema } from './server-config-schema.js';
import type { ConfineSetting } from './confine-setting.js';
import {
  type BackoffConfig,
  type ResolvedServerConfig,
  type RestartPolicy,
  SERVER_CONFIG_DEFAULTS,
  TRANSPORTS,
  type TransportKind,
} from './server-config.js';

// The package's shared draft-07 instance (with the tool schemas'); test/unit/config checks these schemas in strict mode.
const ajv = sharedAjv('draft-07');
const matchesSchema = ajv.compile(serverConfigSchema);

/** Configurations this module validated and resolved (or derived from one through `markResolved`). */
const resolvedConfigs = new WeakSet<object>();

/**
 * Whether `value` is a configuration validated here (frozen, every default filled in): such a
 * configuration is handed down as it is and never validated again (McpClient checks this).
 */
export function isResolvedServerConfig(value: unknown): value is ResolvedServerConfig {
  return typeof value === 'object' && value !== null && resolvedConfigs.has(value);
}

/**
 * Marks a frozen copy of a resolved configuration, derived from one by code that keeps it valid
 * (paths anchored in a folder, runtime placeholders filled in), as resolved too.
 */
export function markResolved<T extends ResolvedServerConfig>(config: T): T {
  if (Object.isFrozen(config)) resolvedConfigs.add(config);
  return config;
}

export interface ValidateServerConfigOptions {
  /** What the error message calls the input: `invalid <subject> (2 problems)`. Defaults to `configuration of server "<name>"`. */
  readonly subject?: string;
  /** Written before every key path, e.g. `servers.github` for a server of agents.yaml. */
  readonly pathPrefix?: string;
  /**
   * How keys are spelled in paths and hints: `camelCase` (default, TypeScript) or `snake_case` (for
   * input that came through `serverConfigFromSnake`, so the messages quote the YAML file back).
   */
  readonly keyStyle?: KeyStyle;
}

/**
 * Validates one server's configuration and returns it with every default filled in, frozen.
 * Throws a `ConfigError` that lists every problem, each with its key path and a hint. The input is
 * never changed, and unknown keys (`__proto__` included) are reported, never copied.
 *
 * `transport` may be left out: `stdio` when `command` is given, `streamable-http` when `url` is.
 *
 * @example
 * const config = validateServerConfig({ name: 'everything', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] });
 * config.transport; // 'stdio'
 * config.restart; // 'permanent'
 */
export function validateServerConfig(input: unknown, options: ValidateServerConfigOptions = {}): ResolvedServerConfig {
  const namer = keyNamer(options.keyStyle ?? 'camelCase');
  if (!isRecord(input)) {
    throw report([{ path: [], problem: `must be an object describing one server, got ${show(input)}`, hint: EXAMPLE_HINT }], namer, options);
  }
  const data = snapshot(input);
  const found: FoundProblem[] = [];
  if (!matchesSchema(data)) found.push(...problemsFromAjv(matchesSchema.errors ?? [], data, namer));
  found.push(...crossKeyProblems(data, namer));
  if (found.length > 0) throw report(found, namer, options, data.name);
  return markResolved(resolve(data));
}

const EXAMPLE_HINT = 'write { name: "everything", command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] }';

/**
 * A copy of the own keys of the input (and of its backoff, env, headers and args), so validation
 * and resolution read the same values once, and nothing inherited or behind a getter slips in.
 */
function snapshot(input: Record<string, unknown>): Record<string, unknown> {
  const copy = ownEntries(input);
  for (const key of ['backoff', 'env', 'headers'] as const) {
    const value = copy[key];
    if (isRecord(value)) copy[key] = ownEntries(value);
  }
  if (Array.isArray(copy.args)) copy.args = Array.from(copy.args as unknown[]);
  return copy;
}

function ownEntries(record: Record<string, unknown>): Record<string, unknown> {
  // Object.fromEntries defines own properties: a `__proto__` key stays a plain key, never a prototype.
  return Object.fromEntries(Object.keys(record).map((key) => [key, record[key]]));
}

const given = (data: Record<string, unknown>, key: string): boolean => Object.hasOwn(data, key) && data[key] !== undefined;

/** Given with content: an empty `args: []` or `headers: {}` (as a resolved config has) says nothing. */
const givenNonEmpty = (data: Record<string, unknown>, key: string): boolean => {
  if (!given(data, key)) return false;
  const value = data[key];
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length > 0;
  return true;
};

/** The transport written, or the one inferred from command / url; undefined when neither tells. */
function transportOf(data: Record<string, unknown>): TransportKind | undefined {
  const written = data.transport;
  if (written !== undefined) return (TRANSPORTS as readonly unknown[]).includes(written) ? (written as TransportKind) : undefined;
  if (given(data, 'command') === given(data, 'url')) return undefined;
  return given(data, 'command') ? 'stdio' : 'streamable-http';
}

const STDIO_ONLY = ['command', 'args', 'env', 'cwd'] as const;
const HTTP_ONLY = ['url', 'headers'] as const;

/** The rules the schema cannot say well: which transport needs which key, and backoff's order. */
function crossKeyProblems(data: Record<string, unknown>, namer: KeyNamer): FoundProblem[] {
  const problems: FoundProblem[] = [];
  const written = data.transport;
  const transport = transportOf(data);
  if (written === undefined && transport === undefined) {
    problems.push(
      given(data, 'command')
        ? {
            path: ['transport'],
            problem: 'cannot be inferred: both command (stdio) and url (sse/streamable-http) are given',
            hint: 'remove url to spawn command, or remove command to connect to url',
          }
        : {
            path: ['command'],
            problem: 'a server needs either command (stdio) or url (sse/streamable-http)',
            hint: 'write command: "npx" to spawn a local server, or url: "http://localhost:3000/mcp" to reach a remote one',
          },
    );
  }
  if (transport !== undefined) {
    const because = written === undefined ? ` (this server uses "${transport}" because ${transport === 'stdio' ? 'command' : 'url'} is given)` : '';
    if (transport === 'stdio') {
      if (!given(data, 'command')) {
        problems.push({ path: ['command'], problem: 'is required for transport "stdio"', hint: 'write the program to spawn, such as command: "npx"' });
      }
      for (const key of HTTP_ONLY) {
        if (givenNonEmpty(data, key)) {
          problems.push({
            path: [key],
            problem: `belongs to transports "sse" and "streamable-http", not "stdio"${because}`,
            hint: `remove ${key}, or write transport: "streamable-http"`,
          });
        }
      }
    } else {
      if (!given(data, 'url')) {
        problems.push({
          path: ['url'],
          problem: `is required for transport "${transport}"`,
          hint: "write the server's endpoint, such as url: \"http://localhost:3000/mcp\"",
        });
      }
      for (const key of STDIO_ONLY) {
        if (givenNonEmpty(data, key)) {
          problems.push({
            path: [key],
            problem: `belongs to transport "stdio", not "${transport}"${because}`,
            hint: written === undefined ? `remove ${key}, or give command instead of url` : `remove ${key}, or write transport: "stdio"`,
          });
        }
      }
    }
  }
  if (typeof data.url === 'string' && !isHttpUrl(data.url)) problems.push(urlProblem(data.url));
  const order = backoffOrderProblem(data, namer);
  if (order) problems.push(order);
  return problems;
}

function backoffOrderProblem(data: Record<string, unknown>, namer: KeyNamer): FoundProblem | undefined {
  const backoff = isRecord(data.backoff) ? data.backoff : {};
  const initial = backoff.initialMs ?? SERVER_CONFIG_DEFAULTS.backoff.initialMs;
  const max = backoff.maxMs ?? SERVER_CONFIG_DEFAULTS.backoff.maxMs;
  if (typeof initial !== 'number' || typeof max !== 'number' || max >= initial) return undefined;
  const initialKey = namer.key('initialMs');
  const maxKey = namer.key('maxMs');
  if (backoff.maxMs !== undefined) {
    const note = backoff.initialMs === undefined ? ', the default' : '';
    return {
      path: ['backoff', 'maxMs'],
      problem: `must be at least ${initialKey} (${initial}${note}), got ${max}`,
      hint: `raise ${maxKey} to ${initial} or more, or lower ${initialKey}`,
    };
  }
  return {
    path: ['backoff', 'initialMs'],
    problem: `must be at most ${maxKey} (${max}, the default), got ${initial}`,
    hint: `lower ${initialKey}, or raise ${maxKey} to ${initial} or more`,
  };
}

/** The ConfigError for `found`: paths rendered in the person's key style, one problem per path. */
function report(found: readonly FoundProblem[], namer: KeyNamer, options: ValidateServerConfigOptions, name?: unknown): ConfigError {
  const seen = new Set<string>();
  const problems: ConfigProblem[] = [];
  for (const { path, problem, hint } of found) {
    const rendered = renderPath(path, namer, options.pathPrefix);
    if (seen.has(rendered)) continue;
    seen.add(rendered);
    problems.push(hint === undefined ? { path: rendered, problem } : { path: rendered, problem, hint });
  }
  const subject =
    options.subject ?? (typeof name === 'string' && name !== '' ? `configuration of server ${JSON.stringify(name)}` : 'server configuration');
  return new ConfigError(problems, { subject });
}

const pick = <T>(value: unknown, fallback: T): T => (value === undefined ? fallback : (value as T));

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}

function frozenRecord(value: unknown): Readonly<Record<string, string>> {
  return Object.freeze(isRecord(value) ? (ownEntries(value) as Record<string, string>) : {});
}

/** The validated snapshot with every default filled in; arrays and records are frozen copies. */
function resolve(data: Record<string, unknown>): ResolvedServerConfig {
  const defaults = SERVER_CONFIG_DEFAULTS;
  const backoff = isRecord(data.backoff) ? data.backoff : {};
  const resolvedBackoff: BackoffConfig = Object.freeze({
    initialMs: pick(backoff.initialMs, defaults.backoff.initialMs),
    maxMs: pick(backoff.maxMs, defaults.backoff.maxMs),
    factor: pick(backoff.factor, defaults.backoff.factor),
    jitter: pick(backoff.jitter, defaults.backoff.jitter),
  });
  const transport = transportOf(data);
  if (transport === undefined) throw new Error('unreachable: a valid configuration has a transport');
  return Object.freeze({
    name: data.name as string,
    transport,
    command: pick<string | undefined>(data.command, undefined),
    args: Object.freeze(Array.isArray(data.args) ? (Array.from(data.args) as string[]) : []),
    env: frozenRecord(data.env),
    cwd: pick<string | undefined>(data.cwd, undefined),
    url: pick<string | undefined>(data.url, undefined),
    headers: frozenRecord(data.headers),
    ...(transport === 'streamable-http' && pick(data.sseFallback, data.transport === undefined) ? { sseFallback: true as const } : {}),
    restart: pick<RestartPolicy>(data.restart, defaults.restart),
    maxRestarts: pick(data.maxRestarts, defaults.maxRestarts),
    periodMs: pick(data.periodMs, defaults.periodMs),
    backoff: resolvedBackoff,
    startTimeoutMs: pick(data.startTimeoutMs, defaults.startTimeoutMs),
    callTimeoutMs: pick(data.callTimeoutMs, defaults.callTimeoutMs),
    shutdownTimeoutMs: pick(data.shutdownTimeoutMs, defaults.shutdownTimeoutMs),
    idleStopMs: pick(data.idleStopMs, defaults.idleStopMs),
    pingIntervalMs: pick(data.pingIntervalMs, defaults.pingIntervalMs),
    maxMessageBytes: pick(data.maxMessageBytes, defaults.maxMessageBytes),
    stderrLines: pick(data.stderrLines, defaults.stderrLines),
    trusted: pick(data.trusted, defaults.trusted),
    roots: Object.freeze(Array.isArray(data.roots) ? (Array.from(data.roots) as string[]) : []),
    ...(data.confine === undefined ? {} : { confine: deepFreeze(structuredClone(data.confine) as ConfineSetting) }),
  });
}
