/**
 * The one translator from an ajv error to a problem a person can act on: where (the key path),
 * what is wrong in plain words, and what to write instead (a did-you-mean for an unknown key).
 * It reads what it needs from the schema itself: titles, allowed keys, defaults, examples.
 */

import type { ErrorObject } from 'ajv';
import { type KeyStyle, type SchemaNode, isRecord, toCamelKey, toSnakeKey } from './file-keys.js';
import { closest, quotedList } from './suggest.js';

export type PathSegment = string | number;

/** A problem before its path is rendered: the path is still a list of keys and indices. */
export interface FoundProblem {
  readonly path: readonly PathSegment[];
  readonly problem: string;
  readonly hint?: string;
  /** The variable, when the only problem is that a `${VAR}` reference is not set. */
  readonly unset?: string;
}

/** `"5000" (a string)`, `5000 (a number)`, `null`, `a list`, `an object`. */
export function show(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `${JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)} (a string)`;
  if (typeof value === 'number') return Number.isFinite(value) ? `${value} (a number)` : `${value} (not a finite number)`;
  return typeof value === 'boolean' ? `${value} (a boolean)` : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A value as a person writes it in YAML: `{ read_only: true }`, `[a, b]`, `github`. */
export function flow(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(flow).join(', ')}]`;
  if (isRecord(value)) return `{ ${Object.entries(value).map(([key, inner]) => `${key}: ${flow(inner)}`).join(', ')} }`;
  const plain = typeof value !== 'string' || (/^[A-Za-z0-9_./*-]+$/.test(value) && !/^(true|false|null|\d.*)$/.test(value));
  return plain ? String(value) : JSON.stringify(value);
}

/** One problem per ajv error a person needs to see; paths are file keys, the words in `style`. */
export function problemsFromAjv(errors: readonly ErrorObject[] | null | undefined, data: unknown, style: KeyStyle): FoundProblem[] {
  const key = (snake: string) => (style === 'camelCase' ? toCamelKey(snake) : snake);
  return (errors ?? []).flatMap((error) => {
    if ((error as { propertyName?: string }).propertyName !== undefined || error.keyword === 'if') return [];
    return translate(error, parsePointer(error.instancePath, data), key, style) ?? [];
  });
}

/** `/skills/s/mcp_servers/1` → `['skills', 's', 'mcp_servers', 1]`: numbers only for list items. */
function parsePointer(pointer: string, data: unknown): PathSegment[] {
  let current = data;
  return (pointer === '' ? [] : pointer.slice(1).split('/')).map((raw) => {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const list = Array.isArray(current);
    current = list ? (current as unknown[])[Number(key)] : isRecord(current) ? current[key] : undefined;
    return list ? Number(key) : key;
  });
}

type Key = (snake: string) => string;

function translate(error: ErrorObject, path: PathSegment[], key: Key, style: KeyStyle): FoundProblem | undefined {
  const value = error.data as unknown;
  const schema = (error.parentSchema ?? {}) as SchemaNode;
  const params = error.params as Record<string, unknown>;
  const last = String(path.at(-1));
  const example = (schema.examples as unknown[] | undefined)?.[0];
  switch (error.keyword) {
    case 'additionalProperties':
      return unknownKey(path, String(params.additionalProperty), schema, value, key);
    case 'required': {
      const missing = String(params.missingProperty);
      const properties = (schema.properties ?? {}) as Record<string, SchemaNode>;
      // A tool entry that wrote its capabilities without `overrides:` gets its problem at those keys.
      if (missing === 'overrides' && isRecord(value) && Object.keys(value).some((k) => Object.hasOwn(CAPABILITIES, toSnakeKey(k)))) return undefined;
      const written = (properties[missing]?.examples as unknown[] | undefined)?.[0];
      return { path: [...path, missing], problem: 'is required', hint: `write ${key(missing)}: ${written === undefined ? '...' : flow(written)}` };
    }
    case 'type':
      return typeProblem(path, value, schema, params.type, key, style);
    case 'enum':
      return enumProblem(path, value, (schema.enum ?? []) as readonly string[]);
    case 'minimum':
    case 'maximum':
      return rangeProblem(path, value, schema);
    case 'minLength':
      return {
        path,
        problem: 'must not be empty',
        hint: example === undefined ? `leave ${key(last)} out, or give it a value` : `write a value such as ${flow(example)}`,
      };
    case 'pattern':
    case 'format':
      return patternProblem(path, value, schema);
    case 'minItems':
      return { path, problem: 'must not be an empty list', hint: `leave ${last} out to include every tool of the server` };
    case 'uniqueItems': {
      const [first, second] = [Number(params.i), Number(params.j)].sort((a, b) => a - b);
      return {
        path: [...path, second ?? 0],
        problem: `repeats item ${first} (${show((value as unknown[])[first ?? 0])})`,
        hint: 'remove one of them',
      };
    }
    case 'propertyNames':
      return nameProblem(path, String(params.propertyName), (schema.propertyNames ?? {}) as SchemaNode);
    default:
      return { path, problem: error.message ?? `breaks the schema rule "${error.keyword}"` };
  }
}

const CAPABILITIES = { read_only: 1, writes: 1, destructive: 1, idempotent: 1, open_world: 1 } as const;

/** Words from other tools (VS Code, Docker, MCP annotations) for keys spelled differently here, by the schema's title. */
const KEY_SYNONYMS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  server: {
    ...Object.fromEntries(['cmd', 'program', 'executable'].map((w) => [w, 'command'])),
    ...Object.fromEntries(['dir', 'workdir', 'workingdir', 'workingdirectory'].map((w) => [w, 'cwd'])),
    ...{ arguments: 'args', argv: 'args', environment: 'env', endpoint: 'url', uri: 'url', serverurl: 'url' },
    ...{ type: 'transport', restartpolicy: 'restart', timeout: 'call_timeout_ms start_timeout_ms', timeoutms: 'call_timeout_ms start_timeout_ms' },
  },
  'agents file': { mcpservers: 'servers', mcp: 'servers', agents: 'actors', overrides: 'tools', capabilities: 'tools' },
  skill: { servers: 'mcp_servers', mcp: 'mcp_servers', skills: 'agent_skills', agentskill: 'agent_skills' },
  'server inclusion': {
    name: 'server',
    tools: 'include',
    only: 'include',
    allow: 'include',
    deny: 'exclude',
    ignore: 'exclude',
    override: 'overrides',
  },
  'capability overrides': {
    ...{ readonlyhint: 'read_only', readonly: 'read_only', read: 'read_only', write: 'writes', writable: 'writes' },
    ...{ destructivehint: 'destructive', idempotenthint: 'idempotent', openworldhint: 'open_world' },
  },
  actor: { tenant: 'tenant_key', permission: 'permissions' },
  permissions: { exec: 'execute', execution: 'execute', approval: 'execute', allow: 'restricted', grants: 'restricted' },
};

function unknownKey(parent: readonly PathSegment[], written: string, schema: SchemaNode, siblings: unknown, key: Key): FoundProblem {
  const title = String(schema.title ?? 'mapping');
  const allowed = Object.keys((schema.properties ?? {}) as object).map(key);
  const path = [...parent, written];
  const article = /^[aeiou]/.test(title) ? 'an' : 'a';
  const of = title === 'server' ? '' : title === 'backoff' ? ' of backoff' : ` of ${article} ${title}`;
  const problem = title === 'agents file' ? 'is not a known section' : `is not a known key${of}`;
  if (['__proto__', 'constructor', 'prototype'].includes(written)) {
    return {
      path,
      problem: `${problem} (a JavaScript object name; it is never merged)`,
      hint: 'remove it',
    };
  }
  const snake = toSnakeKey(written);
  if (title === 'tool entry' && Object.hasOwn(CAPABILITIES, snake)) {
    return {
      path,
      problem,
      hint: `put it under overrides: overrides: { ${snake}: ${flow(isRecord(siblings) ? siblings[written] : true)} }`,
    };
  }
  if (title === 'actor' && written === 'tools') {
    return {
      path,
      problem,
      hint: 'an actor gets its tools through skills: list them in a skill and write skills: [that-skill]',
    };
  }
  const synonyms = KEY_SYNONYMS[title]?.[written.toLowerCase().replace(/[-_]/g, '')]?.split(' ').map(key);
  if (synonyms) return { path, problem, hint: `did you mean ${quotedList(synonyms)}?` };
  const restyled = [written, snake, toCamelKey(written)];
  const near = allowed.find((k) => restyled.some((w) => k === `${w}Ms` || k === `${w}_ms`)) ?? restyled.map((w) => closest(w, allowed)).find(Boolean);
  if (near !== undefined) return { path, problem, hint: `did you mean "${near}"?` };
  return { path, problem, hint: `allowed ${title === 'agents file' ? 'sections' : 'keys'}: ${allowed.join(', ')}` };
}

const DURATION = /^\s*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)\s*$/i;
/** `"30s"` → 30000; undefined when `text` is not a duration with a unit. */
function parseDuration(text: string): number | undefined {
  const [, amount, unit = ''] = DURATION.exec(text) ?? [];
  const lower = unit.toLowerCase();
  const scale = lower === 'ms' || lower.startsWith('milli') ? 1 : lower.startsWith('s') ? 1000 : lower.startsWith('m') ? 60_000 : 3_600_000;
  return amount === undefined ? undefined : Math.round(Number(amount) * scale);
}

function typeProblem(path: PathSegment[], value: unknown, schema: SchemaNode, expected: unknown, key: Key, style: KeyStyle): FoundProblem {
  const inclusion = `must be a server name or a mapping { server, include, exclude, required, overrides }, got ${show(value)}`;
  if (schema.title === 'server inclusion') return { path, problem: inclusion, hint: 'write - github, or - server: github' };
  const types = Array.isArray(expected) ? (expected as string[]) : [String(expected)];
  const wanted = types.includes('object')
    ? style === 'camelCase' ? 'an object' : 'a mapping (key: value)'
    : types.includes('array') ? 'a list' : types.includes('boolean') ? 'true or false'
      : types[0] === 'integer' && typeof value === 'number' ? 'a whole number' : types[0] === 'integer' ? 'a number' : `a ${types[0]}`;
  const problem = `must be ${wanted}, got ${show(value)}`;
  const hint = typeHint(String(path.at(-1)), types[0] ?? '', value, schema, key);
  return hint === undefined ? { path, problem } : { path, problem, hint };
}

/** What a value of the wrong type should have been; undefined when nothing obvious fits. */
function typeHint(last: string, expected: string, value: unknown, schema: SchemaNode, key: Key): string | undefined {
  const text = typeof value === 'string' ? value.trim() : undefined;
  if (value === null) return schema.default === undefined ? 'leave the key out, or give it a value' : `leave the key out to use the default, ${JSON.stringify(schema.default)}`;
  if (expected === 'number' || expected === 'integer') {
    if (typeof value === 'number') return `write ${Math.round(value)}`;
    if (text !== undefined && /^-?\d+(\.\d+)?$/.test(text)) return `write ${text} without quotes`;
    const ms = text !== undefined && last.endsWith('_ms') ? parseDuration(text) : undefined;
    if (ms !== undefined) return `write ${ms} (milliseconds, a number without quotes or unit)`;
    return typeof value === 'boolean' && (last === 'idle_stop_ms' || last === 'ping_interval_ms') ? 'write 0 to turn it off' : undefined;
  }
  const word = String(value).trim().toLowerCase();
  if (expected === 'boolean') return ['true', 'yes', 'on', 'y', '1'].includes(word) ? 'write true without quotes' : ['false', 'no', 'off', 'n', '0'].includes(word) ? 'write false without quotes' : undefined;
  if (expected === 'string') {
    if (last === 'command' && Array.isArray(value) && value.length > 0 && value.every((part) => typeof part === 'string')) {
      const [program, ...rest] = value as string[];
      return `put the program in ${key('command')} and the rest in ${key('args')}: command: ${JSON.stringify(program)}, args: ${JSON.stringify(rest)}`;
    }
    return typeof value === 'number' || typeof value === 'boolean' ? `write "${String(value)}" in quotes` : undefined;
  }
  if (expected === 'array' && text !== undefined) {
    const parts = text.split(last === 'args' ? /\s+/ : /[\s,]+/).filter(Boolean);
    return last === 'args' ? `write a list with one string per argument: ${JSON.stringify(parts)}` : `write a list: [${parts.join(', ')}]`;
  }
  if (expected === 'object' && (last === 'env' || last === 'headers')) {
    const separator = last === 'env' ? '=' : ':';
    if (Array.isArray(value) && value.every((entry) => typeof entry === 'string' && entry.includes(separator))) {
      const pairs = (value as string[]).map((entry) => [
        entry.slice(0, entry.indexOf(separator)).trim(),
        entry.slice(entry.indexOf(separator) + 1).trim(),
      ]);
      return `write an object: ${JSON.stringify(Object.fromEntries(pairs))}`;
    }
    return last === 'env' ? 'write an object such as { "API_KEY": "..." }' : 'write an object such as { "Authorization": "Bearer ..." }';
  }
  if (expected === 'object' && schema.title === 'backoff') {
    const defaults = Object.entries(schema.properties as Record<string, SchemaNode>).map(([k, inner]) => `${key(k)}: ${String(inner.default)}`);
    return `write an object such as { ${defaults.join(', ')} }, or leave it out`;
  }
  const example = (schema.examples as unknown[] | undefined)?.[0];
  return example === undefined ? undefined : `write something like ${flow(example)}`;
}

/** Words from Docker, systemd and YAML 1.1 for our enum values, by key: `[ours, why]` (no why: just write ours). */
const ENUM_SYNONYMS: Readonly<Record<string, Readonly<Record<string, readonly [string, string?]>>>> = {
  restart: {
    ...Object.fromEntries(['always', 'unlessstopped'].map((w) => [w, ['permanent', "OTP's name for always restart"]])),
    ...Object.fromEntries(['onfailure', 'onabnormal'].map((w) => [w, ['transient', "OTP's name for restart only after an abnormal exit"]])),
    ...Object.fromEntries(['never', 'no', 'none'].map((w) => [w, ['temporary', "OTP's name for never restart"]])),
  },
  transport: {
    http: ['streamable-http', 'the current MCP transport over HTTP'],
    https: ['streamable-http', 'the current MCP transport over HTTP'],
    ...Object.fromEntries(['local', 'process', 'command'].map((w) => [w, ['stdio', 'spawn a local process']])),
  },
  execute: {
    ...Object.fromEntries(['true', 'yes', 'always', 'auto'].map((w) => [w, ['allow']])),
    ...Object.fromEntries(['false', 'no', 'never'].map((w) => [w, ['deny']])),
    ...Object.fromEntries(['prompt', 'confirm', 'approve'].map((w) => [w, ['ask']])),
  },
};

const normalize = (word: string): string => word.toLowerCase().replace(/[^a-z0-9]/g, '');

function enumProblem(path: PathSegment[], value: unknown, allowed: readonly string[]): FoundProblem {
  const problem = `must be one of ${quotedList(allowed)}, got ${show(value)}`;
  if (typeof value !== 'string') return { path, problem };
  const word = normalize(value);
  const exact = allowed.find((candidate) => normalize(candidate) === word);
  if (exact !== undefined) return { path, problem, hint: `write "${exact}"` };
  if (['ws', 'wss', 'websocket'].includes(word)) {
    return {
      path,
      problem,
      hint: 'WebSocket is not supported: use "streamable-http" with an http(s) url',
    };
  }
  const [ours, why] = ENUM_SYNONYMS[String(path.at(-1))]?.[word] ?? [];
  if (ours !== undefined) return { path, problem, hint: why === undefined ? `write "${ours}"` : `use "${ours}" (${why})` };
  const near = closest(value, allowed);
  return near === undefined ? { path, problem } : { path, problem, hint: `did you mean "${near}"?` };
}

function rangeProblem(path: PathSegment[], value: unknown, schema: SchemaNode): FoundProblem {
  const last = String(path.at(-1));
  const got = `got ${typeof value === 'number' ? value : show(value)}`;
  const percent = typeof value === 'number' && value >= 5 && value <= 100;
  if (last === 'jitter') {
    return {
      path,
      problem: `must be between 0 and 1, ${got}`,
      hint: percent ? `write ${value / 100} for ${value}%` : 'write a fraction such as 0.2 (a fifth of each delay is random)',
    };
  }
  if (last === 'factor') {
    return {
      path,
      problem: `must be 1 or more, ${got} (below 1 each restart would wait less than the one before)`,
      hint: 'write 1 for a constant delay, or 2 to double it after each restart',
    };
  }
  if (last === 'max_message_bytes') {
    return {
      path,
      problem: `must be at least ${String(schema.minimum)} bytes, ${got}`,
      hint: `write a size in bytes such as ${String(schema.default)} (16 MiB, the default)`,
    };
  }
  const off = {
    max_restarts: 'write 0 to never restart automatically',
    stderr_lines: 'write 0 to keep no stderr lines',
    idle_stop_ms: 'write 0 to never stop an idle server',
    ping_interval_ms: 'write 0 to turn pinging off',
  }[last];
  const timer = `must be at most ${String(schema.maximum)} (about 24.8 days, the longest a Node timer can wait), ${got}`;
  if (typeof value === 'number' && typeof schema.maximum === 'number' && value > schema.maximum) {
    return {
      path,
      problem: timer,
      hint: off ?? 'write a shorter duration in milliseconds',
    };
  }
  return {
    path,
    problem: `must be ${String(schema.minimum)} or more, ${got}`,
    hint: off ?? `write a duration in milliseconds such as ${JSON.stringify(schema.default ?? 1000)}`,
  };
}

function patternProblem(path: PathSegment[], value: unknown, schema: SchemaNode): FoundProblem {
  const text = String(value);
  const parent = path.at(-2);
  if (path.at(-1) === 'name' && path.length === 1) {
    const fixed = text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
    const problem = `must start with a letter or digit and contain only letters, digits, ".", "_" and "-", got ${show(value)}`;
    return { path, problem, hint: fixed === '' ? 'write a name such as "github"' : `write "${fixed}"` };
  }
  if (path.at(-1) === 'url') return urlProblem(text);
  if (parent === 'env') return { path, problem: 'must not contain a NUL character', hint: 'remove the \\0 from the value' };
  if (parent === 'headers') return { path, problem: 'must not contain line breaks or NUL characters', hint: 'write the header value on one line' };
  const problem = text === '' ? 'must not be empty' : `must be ${String(schema.description ?? 'in the expected form')}, got ${show(value)}`;
  if (schema.title === 'tool pattern' && text.includes('/')) {
    return {
      path,
      problem,
      hint: `write "${text.slice(text.lastIndexOf('/') + 1)}": the server is given by server`,
    };
  }
  if (schema.title === 'full tool name' && !text.includes('/')) return { path, problem, hint: `write the namespace too, such as "builtin/${text}"` };
  const example = (schema.examples as unknown[] | undefined)?.[0];
  return example === undefined ? { path, problem } : { path, problem, hint: `write a value such as ${flow(example)}` };
}

function nameProblem(parent: PathSegment[], name: string, names: SchemaNode): FoundProblem {
  const path = [...parent, name];
  const hint = String(names.title).includes('environment') ? 'environment variable names must not be empty or contain "="' : "header names use letters, digits and !#$%&'*+.^_`|~- only";
  if (typeof names.title === 'string') {
    return {
      path,
      problem: name === '__proto__' ? `is not allowed as the name of ${names.title}` : `is not a valid name for ${names.title}`,
      hint,
    };
  }
  const problem = `is not a valid name: must be ${String(names.description ?? 'a plain name')}`;
  if (parent[0] === 'tools' && parent.length === 1 && !name.includes('/')) {
    return {
      path,
      problem,
      hint: `write "<server>/${name}", such as "github/${name}"`,
    };
  }
  if (parent.at(-1) === 'overrides' && name.includes('/')) {
    return {
      path,
      problem,
      hint: `write "${name.slice(name.lastIndexOf('/') + 1)}": the server is given by server`,
    };
  }
  const fixed = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  const example = (names.examples as unknown[] | undefined)?.[0];
  return { path, problem, hint: parent[0] === 'tools' || fixed === '' ? `write a name such as ${flow(example)}` : `write "${fixed}"` };
}

/** The url must parse, be http:// or https://, and name a host. */
export function urlProblem(url: string): FoundProblem {
  const path = ['url'];
  const problem = `must be an http:// or https:// URL, got ${show(url)}`;
  if (/^wss?:\/\//i.test(url)) {
    return {
      path,
      problem,
      hint: `WebSocket is not supported: write the server's http(s) endpoint, such as "${url.replace(/^ws/i, 'http')}"`,
    };
  }
  if (!url.includes('://') && /^[A-Za-z0-9.-]+(:\d+)?(\/.*)?$/.test(url)) return { path, problem, hint: `write "http://${url}"` };
  return { path, problem, hint: 'write a full address such as "http://localhost:3000/mcp"' };
}
