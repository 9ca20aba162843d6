/**
 * `validateServerConfig`: one server entry checked against `serverConfigSchema` and the rules that
 * tie its keys together, every mistake reported at once, every default filled in; the result is
 * frozen and branded, so it is handed down (to `McpClient`, the machines) and never checked again.
 */

import { ConfigError } from '../errors/index.js';
import { sharedAjv } from '../registry/json-schema-validators.js';
import { type KeyStyle, fromApiKeys, isRecord, styledPath, toApiKeys, toCamelKey } from './file-keys.js';
import { problemsFromAjv, show } from './problem-text.js';
import type { FoundProblem, PathSegment } from './found-problem.js';
import { type ResolvedServerConfig, type TransportKind, TRANSPORTS, serverConfigSchema } from './server-schema.js';
import { placeProblems } from './source-locations.js';
import { quotedList } from './suggest.js';

export * from './server-schema.js';

// The package's shared draft-07 instance; test/unit/config checks the schemas in strict mode.
const matchesSchema = sharedAjv('draft-07').compile(serverConfigSchema);
const resolvedConfigs = new WeakSet<object>();

/** Whether `value` was validated here: McpClient takes such a config as it is. */
export function isResolvedServerConfig(value: unknown): value is ResolvedServerConfig {
  return typeof value === 'object' && value !== null && resolvedConfigs.has(value);
}

/** Brands a frozen copy of a resolved config made by code that keeps it valid (paths anchored, placeholders filled in). */
export function markResolved<T extends ResolvedServerConfig>(config: T): T {
  if (Object.isFrozen(config)) resolvedConfigs.add(config);
  return config;
}

export interface ValidateServerConfigOptions {
  /** What the error message calls the input: `invalid <subject> (2 problems)`. Default: `configuration of server "<name>"`. */
  readonly subject?: string;
  /** Written before every key path, e.g. `servers.github`. */
  readonly pathPrefix?: string;
  /** The keys of the input: `camelCase` (default, TypeScript) or `snake_case` (a file's entry). */
  readonly keyStyle?: KeyStyle;
}

/**
 * Validates one server's configuration and returns it with every default filled in, frozen.
 * Throws a `ConfigError` listing every problem with its key path and a hint. The input is never
 * changed; unknown keys (`__proto__` included) are reported, never copied.
 *
 * @example
 * const config = validateServerConfig({ name: 'everything', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] });
 * config.transport; // 'stdio'
 */
export function validateServerConfig(input: unknown, options: ValidateServerConfigOptions = {}): ResolvedServerConfig {
  const checked = isRecord(input)
    ? checkServer(input, options.keyStyle ?? 'camelCase')
    : { problems: [{ path: [], problem: `must be an object describing one server, got ${show(input)}`, hint: EXAMPLE_HINT }] };
  if (checked.config) return checked.config;
  const name = isRecord(input) ? input.name : undefined;
  const subject =
    options.subject ??
    (typeof name === 'string' && name !== '' ? `configuration of server ${JSON.stringify(name)}` : 'server configuration');
  const problems = placeProblems(checked.problems).problems.map((problem) => ({
    ...problem,
    path: [options.pathPrefix, problem.path].filter(Boolean).join('.'),
  }));
  throw new ConfigError(problems, { subject });
}

const EXAMPLE_HINT = 'write { name: "everything", command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] }';

/** One entry, checked and resolved. Problems' paths are spelled as in the input (`style`), under `at`. */
export function checkServer(
  input: Record<string, unknown>,
  style: KeyStyle,
  at: readonly PathSegment[] = [],
): { config?: ResolvedServerConfig; problems: FoundProblem[] } {
  const renamed = fromApiKeys(input, serverConfigSchema, style);
  const data = renamed.value as Record<string, unknown>;
  const found = matchesSchema(data) ? [] : problemsFromAjv(matchesSchema.errors, data, style);
  found.push(...crossKeyProblems(data, style));
  const problems = [
    ...renamed.problems.map((problem) => ({ ...problem, path: [...at, ...problem.path] })),
    ...found.map((problem) => ({ ...problem, path: [...at, ...styledPath(problem.path, serverConfigSchema, style)] })),
  ];
  if (problems.length > 0) return { problems };
  const transport = transportOf(data) as TransportKind;
  const fallback = transport === 'streamable-http' && (data.sse_fallback ?? data.transport === undefined) === true;
  const { sse_fallback: _written, ...rest } = data;
  const resolved = toApiKeys({ ...rest, transport, ...(fallback ? { sse_fallback: true } : {}) }, serverConfigSchema, true);
  return { config: markResolved(resolved as ResolvedServerConfig), problems: [] };
}

const given = (data: Record<string, unknown>, key: string): boolean => Object.hasOwn(data, key) && data[key] !== undefined;
const isEmpty = (value: unknown): boolean => typeof value === 'object' && value !== null && Object.keys(value).length === 0;

/** The transport written, or the one inferred from command / url; undefined when neither tells. */
function transportOf(data: Record<string, unknown>): TransportKind | undefined {
  if (data.transport !== undefined)
    return (TRANSPORTS as readonly unknown[]).includes(data.transport) ? (data.transport as TransportKind) : undefined;
  if (given(data, 'command') === given(data, 'url')) return undefined;
  return given(data, 'command') ? 'stdio' : 'streamable-http';
}

/** The transports a key is for, as its description starts: `stdio: …`, `sse / streamable-http: …`. */
const ownersOf = (schema: { readonly description?: string }): TransportKind[] =>
  (schema.description?.split(': ')[0] ?? '')
    .split(' / ')
    .filter((word): word is TransportKind => (TRANSPORTS as readonly string[]).includes(word));

/** The rules the schema cannot say well: which transport needs which key, and backoff's order. */
function crossKeyProblems(data: Record<string, unknown>, style: KeyStyle): FoundProblem[] {
  const key = (snake: string) => (style === 'camelCase' ? toCamelKey(snake) : snake);
  const [written, transport] = [data.transport, transportOf(data)];
  const order = backoffOrderProblem(data, key);
  const problems = order ? [order] : [];
  if (transport === undefined) {
    if (written !== undefined) return problems; // the schema reports the value
    return [
      ...problems,
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
    ];
  }
  const stdio = transport === 'stdio';
  const endpoint = stdio ? 'command' : 'url';
  if (!given(data, endpoint)) {
    const hint = stdio
      ? 'write the program to spawn, such as command: "npx"'
      : 'write the server\'s endpoint, such as url: "http://localhost:3000/mcp"';
    problems.push({ path: [endpoint], problem: `is required for transport "${transport}"`, hint });
  }
  const because = written === undefined ? ` (this server uses "${transport}" because ${endpoint} is given)` : '';
  for (const [name, schema] of Object.entries(serverConfigSchema.properties) as [string, { description?: string; default?: unknown }][]) {
    const owners = ownersOf(schema);
    // An empty `args: []` or `headers: {}` (as a resolved config has) says nothing; keys with a real default are left alone.
    if (
      owners.length === 0 ||
      owners.includes(transport) ||
      !given(data, name) ||
      isEmpty(data[name]) ||
      !(schema.default === undefined || isEmpty(schema.default))
    )
      continue;
    const other = stdio || written !== undefined ? `write transport: "${String(owners.at(-1))}"` : 'give command instead of url';
    const problem = `belongs to ${owners.length > 1 ? 'transports' : 'transport'} ${quotedList(owners, 'and')}, not "${transport}"${because}`;
    problems.push({ path: [name], problem, hint: `remove ${key(name)}, or ${other}` });
  }
  return problems;
}

function backoffOrderProblem(data: Record<string, unknown>, key: (snake: string) => string): FoundProblem | undefined {
  const backoff = isRecord(data.backoff) ? data.backoff : {};
  const defaults = serverConfigSchema.properties.backoff.properties;
  const [initial, max] = [backoff.initial_ms ?? defaults.initial_ms.default, backoff.max_ms ?? defaults.max_ms.default];
  if (typeof initial !== 'number' || typeof max !== 'number' || max >= initial) return undefined;
  const [initialKey, maxKey] = [key('initial_ms'), key('max_ms')];
  if (backoff.max_ms === undefined) {
    return {
      path: ['backoff', 'initial_ms'],
      problem: `must be at most ${maxKey} (${max}, the default), got ${initial}`,
      hint: `lower ${initialKey}, or raise ${maxKey} to ${initial} or more`,
    };
  }
  const note = backoff.initial_ms === undefined ? ', the default' : '';
  return {
    path: ['backoff', 'max_ms'],
    problem: `must be at least ${initialKey} (${initial}${note}), got ${max}`,
    hint: `raise ${maxKey} to ${initial} or more, or lower ${initialKey}`,
  };
}

/**
 * A server entry named by its key (`servers.<name>` in agents.yaml, `mcpServers.<name>` in JSON):
 * a `name` key must agree with the key, and a bad key is reported as a bad server name at `at`.
 */
export function checkNamedServer(
  name: string,
  entry: unknown,
  at: readonly PathSegment[],
  style: KeyStyle,
): { config?: ResolvedServerConfig; problems: FoundProblem[] } {
  if (!isRecord(entry))
    return {
      problems: [
        {
          path: at,
          problem: `must be a mapping describing one server, got ${show(entry)}`,
          hint: 'write command: npx, or url: http://localhost:3000/mcp',
        },
      ],
    };
  const { name: written, ...rest } = entry;
  const problem = `is ${show(written)}, but a server is named by its key, "${name}"`;
  const clash =
    written !== undefined && written !== name ? [{ path: [...at, 'name'], problem, hint: 'remove name, or rename the key' }] : [];
  const checked = checkServer({ name, ...rest }, style, at);
  const isName = (path: readonly PathSegment[]) => path.length === at.length + 1 && path.at(-1) === 'name';
  const problems = [
    ...clash,
    ...checked.problems.map((p) =>
      isName(p.path)
        ? { ...p, path: at, problem: `is not a valid server name: ${p.problem.replace(/^must be a server name: /, 'must be ')}` }
        : p,
    ),
  ];
  return problems.length > 0 ? { problems } : checked;
}
