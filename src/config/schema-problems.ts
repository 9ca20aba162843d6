/**
 * Turns ajv's errors for `serverConfigSchema` into problems a person can act on: the key path, what
 * is wrong in plain English, and what to write instead.
 */

import type { ErrorObject } from 'ajv';
import { BACKOFF_KEY_MAP, BACKOFF_KEYS, SERVER_CONFIG_KEYS, SERVER_TOP_LEVEL_KEY_MAP, isRecord, toCamelKey, toSnakeKey } from './config-keys.js';
import {
  type FoundProblem,
  type KeyNamer,
  type PathSegment,
  defaultOf,
  show,
  typeHint,
  typeName,
} from './problem-text.js';
import { MAX_TIMER_MS, MIN_MESSAGE_BYTES } from './server-config-schema.js';
import { RESTART_POLICIES, TRANSPORTS } from './server-config.js';
import { closest, quotedList } from './suggest.js';

/** One problem per ajv error that a person needs to see (ajv's inner `propertyNames` errors are folded). */
export function problemsFromAjv(errors: readonly ErrorObject[], data: Record<string, unknown>, namer: KeyNamer): FoundProblem[] {
  const problems: FoundProblem[] = [];
  for (const error of errors) {
    if ((error as { propertyName?: string }).propertyName !== undefined) continue;
    const problem = problemFromAjv(error, data, namer);
    if (problem) problems.push(problem);
  }
  return problems;
}

function problemFromAjv(error: ErrorObject, data: Record<string, unknown>, namer: KeyNamer): FoundProblem | undefined {
  const path = parsePointer(error.instancePath);
  const value = valueAt(data, path);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return unknownKeyProblem(path, String(params.additionalProperty), valueAt(data, path), namer);
    case 'required':
      return {
        path: [String(params.missingProperty)],
        problem: 'is required',
        hint: 'write name: "github" (a letter or digit, then letters, digits, ".", "_" or "-")',
      };
    case 'type': {
      const expected = String(params.type);
      const hint = typeHint(path, expected, value, namer);
      return { path, problem: `must be ${typeName(path, expected, value)}, got ${show(value)}`, ...(hint ? { hint } : {}) };
    }
    case 'enum':
      return enumProblem(path, value);
    case 'minimum':
    case 'maximum':
      return rangeProblem(path, value);
    case 'minLength':
      return emptyProblem(path, namer);
    case 'pattern':
    case 'format':
      return patternProblem(path, value);
    case 'propertyNames': {
      const name = String(params.propertyName);
      const where = path[0] === 'env' ? 'an environment variable' : 'an HTTP header';
      return {
        path: [...path, name],
        problem: name === '__proto__' ? `is not allowed as the name of ${where}` : `is not a valid name for ${where}`,
        hint:
          path[0] === 'env'
            ? 'environment variable names must not be empty or contain "="'
            : 'header names use letters, digits and !#$%&\'*+.^_`|~- only',
      };
    }
    default:
      return { path, problem: error.message ?? `fails the schema rule "${error.keyword}"` };
  }
}

/** Reads the value at `path` of the validated snapshot. */
export function valueAt(data: unknown, path: readonly PathSegment[]): unknown {
  let current: unknown = data;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (isRecord(current) && Object.hasOwn(current, segment)) current = current[segment];
    else return undefined;
  }
  return current;
}

/** `/env/A~1B` → `['env', 'A/B']`; `/args/2` → `['args', 2]`. */
function parsePointer(pointer: string): PathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((raw, index, all) => {
      const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      return index === 1 && all[0] === 'args' && /^\d+$/.test(segment) ? Number(segment) : segment;
    });
}

const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Words people bring from other tools (VS Code's `type`, Docker's `cmd`) for keys we spell differently. */
const KEY_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  cmd: ['command'],
  program: ['command'],
  executable: ['command'],
  arguments: ['args'],
  argv: ['args'],
  environment: ['env'],
  dir: ['cwd'],
  workdir: ['cwd'],
  workingdir: ['cwd'],
  workingdirectory: ['cwd'],
  endpoint: ['url'],
  uri: ['url'],
  serverurl: ['url'],
  type: ['transport'],
  restartpolicy: ['restart'],
  timeout: ['callTimeoutMs', 'startTimeoutMs'],
  timeoutms: ['callTimeoutMs', 'startTimeoutMs'],
};

function unknownKeyProblem(parent: readonly PathSegment[], key: string, siblings: unknown, namer: KeyNamer): FoundProblem {
  const inBackoff = parent[0] === 'backoff';
  const allowed: readonly string[] = inBackoff ? BACKOFF_KEYS : SERVER_CONFIG_KEYS;
  const snakeMap: Readonly<Record<string, string>> = inBackoff ? BACKOFF_KEY_MAP : SERVER_TOP_LEVEL_KEY_MAP;
  const path = [...parent, key];
  const problem = inBackoff ? 'is not a known key of backoff' : 'is not a known key';
  const allowedList = `allowed keys: ${allowed.map((k) => namer.key(k)).join(', ')}`;

  if (RESERVED_KEYS.has(key)) {
    return { path, problem: `${problem} (a JavaScript object name; it is never merged)`, hint: 'remove it' };
  }
  const camel = Object.hasOwn(snakeMap, key) ? snakeMap[key] : undefined;
  if (camel !== undefined && camel !== key) {
    if (isRecord(siblings) && Object.hasOwn(siblings, camel)) {
      return { path, problem: `repeats ${JSON.stringify(camel)}, which is also given`, hint: `keep only one of "${key}" and "${camel}"` };
    }
    return { path, problem, hint: `write "${camel}" (snake_case keys belong in agents.yaml)` };
  }
  const synonyms = KEY_SYNONYMS[key.replace(/[-_]/g, '').toLowerCase()];
  if (synonyms) {
    return { path, problem, hint: `did you mean ${quotedList(synonyms.map((k) => namer.key(k)))}?` };
  }
  const spelled = allowed.map((k) => namer.key(k));
  const restyled = namer.style === 'snake_case' ? toSnakeKey(key) : toCamelKey(key);
  const withUnit = spelled.find((k) => k === `${restyled}Ms` || k === `${restyled}_ms`);
  const near = withUnit ?? closest(key, spelled) ?? closest(restyled, spelled);
  if (near !== undefined) return { path, problem, hint: `did you mean "${near}"?` };
  return { path, problem, hint: allowedList };
}

/** Words from Docker, systemd and other MCP hosts, mapped to ours, with why. */
const ENUM_SYNONYMS: Readonly<Record<string, Readonly<Record<string, readonly [string, string?]>>>> = {
  restart: {
    always: ['permanent', "OTP's name for always restart"],
    unlessstopped: ['permanent', "OTP's name for always restart"],
    onfailure: ['transient', "OTP's name for restart only after an abnormal exit"],
    onabnormal: ['transient', "OTP's name for restart only after an abnormal exit"],
    never: ['temporary', "OTP's name for never restart"],
    no: ['temporary', "OTP's name for never restart"],
    none: ['temporary', "OTP's name for never restart"],
  },
  transport: {
    http: ['streamable-http', 'the current MCP transport over HTTP'],
    https: ['streamable-http', 'the current MCP transport over HTTP'],
    streamable: ['streamable-http'],
    local: ['stdio', 'spawn a local process'],
    process: ['stdio', 'spawn a local process'],
    command: ['stdio', 'spawn a local process'],
  },
};

const normalize = (word: string): string => word.toLowerCase().replace(/[^a-z0-9]/g, '');

function enumProblem(path: readonly PathSegment[], value: unknown): FoundProblem {
  const key = String(path.at(-1));
  const allowed: readonly string[] = key === 'transport' ? TRANSPORTS : RESTART_POLICIES;
  const problem = `must be one of ${quotedList(allowed)}, got ${show(value)}`;
  if (typeof value !== 'string') return { path, problem };
  const word = normalize(value);
  const exact = allowed.find((candidate) => normalize(candidate) === word);
  if (exact !== undefined) return { path, problem, hint: `write "${exact}"` };
  if (key === 'transport' && (word === 'ws' || word === 'websocket' || word === 'wss')) {
    return { path, problem, hint: 'WebSocket is not supported: use "streamable-http" with an http(s) url' };
  }
  const synonym = ENUM_SYNONYMS[key]?.[word];
  if (synonym) return { path, problem, hint: `use "${synonym[0]}"${synonym[1] ? ` (${synonym[1]})` : ''}` };
  const near = closest(value, allowed);
  return near === undefined ? { path, problem } : { path, problem, hint: `did you mean "${near}"?` };
}

function rangeProblem(path: readonly PathSegment[], value: unknown): FoundProblem {
  const key = String(path.at(-1));
  const got = `got ${typeof value === 'number' ? value : show(value)}`;
  const fallback = defaultOf(path);
  switch (key) {
    case 'jitter': {
      const percent = typeof value === 'number' && value >= 5 && value <= 100;
      return {
        path,
        problem: `must be between 0 and 1, ${got}`,
        hint: percent ? `write ${Number(value) / 100} for ${value}%` : 'write a fraction such as 0.2 (a fifth of each delay is random)',
      };
    }
    case 'factor':
      return {
        path,
        problem: `must be 1 or more, ${got} (below 1 each restart would wait less than the one before)`,
        hint: 'write 1 for a constant delay, or 2 to double it after each restart',
      };
    case 'maxMessageBytes':
      return {
        path,
        problem: `must be at least ${MIN_MESSAGE_BYTES} bytes, ${got}`,
        hint: `write a size in bytes such as ${fallback} (16 MiB, the default)`,
      };
    case 'maxRestarts':
      return { path, problem: `must be 0 or more, ${got}`, hint: 'write 0 to never restart automatically' };
    case 'stderrLines':
      return { path, problem: `must be 0 or more, ${got}`, hint: 'write 0 to keep no stderr lines' };
  }
  const off =
    key === 'idleStopMs' ? 'write 0 to never stop an idle server' : key === 'pingIntervalMs' ? 'write 0 to turn pinging off' : undefined;
  if (typeof value === 'number' && value > MAX_TIMER_MS) {
    return {
      path,
      problem: `must be at most ${MAX_TIMER_MS} (about 24.8 days, the longest a Node timer can wait), ${got}`,
      hint: off ?? 'write a shorter duration in milliseconds',
    };
  }
  return {
    path,
    problem: `must be 0 or more, ${got}`,
    hint: off ?? `write a duration in milliseconds such as ${JSON.stringify(fallback ?? 1000)}`,
  };
}

function emptyProblem(path: readonly PathSegment[], namer: KeyNamer): FoundProblem {
  switch (path[0]) {
    case 'name':
      return { path, problem: 'must not be empty', hint: 'write a name such as "github"' };
    case 'command':
      return { path, problem: 'must not be empty', hint: 'write the program to spawn, such as "npx" or "node"' };
    default:
      return { path, problem: 'must not be empty', hint: `leave ${namer.key(String(path[0]))} out to use the host's working directory` };
  }
}

function patternProblem(path: readonly PathSegment[], value: unknown): FoundProblem {
  switch (path[0]) {
    case 'name':
      return nameProblem(path, String(value));
    case 'url':
      return urlProblem(String(value));
    case 'env':
      return { path, problem: 'must not contain a NUL character', hint: 'remove the \\0 from the value' };
    default:
      return { path, problem: 'must not contain line breaks or NUL characters', hint: 'write the header value on one line' };
  }
}

function nameProblem(path: readonly PathSegment[], name: string): FoundProblem {
  const fixed = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return {
    path,
    problem: `must start with a letter or digit and contain only letters, digits, ".", "_" and "-", got ${show(name)}`,
    hint: fixed === '' ? 'write a name such as "github"' : `write "${fixed}"`,
  };
}

/** The url must parse, be http:// or https://, and name a host. */
export function urlProblem(url: string): FoundProblem {
  const path = ['url'];
  const problem = `must be an http:// or https:// URL, got ${show(url)}`;
  if (/^wss?:\/\//i.test(url)) {
    return { path, problem, hint: `WebSocket is not supported: write the server's http(s) endpoint, such as "${url.replace(/^ws/i, 'http')}"` };
  }
  if (!url.includes('://') && /^[A-Za-z0-9.-]+(:\d+)?(\/.*)?$/.test(url)) return { path, problem, hint: `write "http://${url}"` };
  return { path, problem, hint: 'write a full address such as "http://localhost:3000/mcp"' };
}

/** Whether `url` is an http(s) URL that names a host (ajv's `uri` format accepts `localhost:3000`). */
export function isHttpUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '';
  } catch {
    return false;
  }
}
