/**
 * The words of a configuration problem: how a value is shown, how a key path is written in the
 * user's key style, and what to write instead of a value of the wrong type.
 */

import { BACKOFF_KEYS, SERVER_CONFIG_KEYS, toSnakeKey } from './config-keys.js';
import { SERVER_CONFIG_DEFAULTS } from './server-config.js';

/** Which spelling the person wrote: camelCase (TypeScript, JSON) or snake_case (agents.yaml). */
export type KeyStyle = 'camelCase' | 'snake_case';

export type PathSegment = string | number;

/** A problem before its path is rendered: the path is still a list of keys and indices. */
export interface FoundProblem {
  readonly path: readonly PathSegment[];
  readonly problem: string;
  readonly hint?: string;
  /** The variable, when the only problem is that a `${VAR}` reference is not set. */
  readonly unset?: string;
}

/** Renders keys in the style the person wrote them, so messages quote their own file back. */
export interface KeyNamer {
  readonly style: KeyStyle;
  /** A camelCase key of the config (`startTimeoutMs`) as the person spells it. */
  key(camel: string): string;
}

export function keyNamer(style: KeyStyle): KeyNamer {
  return { style, key: (camel) => (style === 'snake_case' ? toSnakeKey(camel) : camel) };
}

const PLAIN_SEGMENT = /^[A-Za-z0-9_$-]+$/;
const TOP_KEYS = new Set<string>(SERVER_CONFIG_KEYS);
const BACKOFF_KEY_SET = new Set<string>(BACKOFF_KEYS);

/**
 * `backoff.factor`, `args.2`, `env.API_KEY`, `env["A=B"]`: config keys in the person's style,
 * user data (env names, header names, unknown keys) exactly as written.
 */
export function renderPath(path: readonly PathSegment[], namer: KeyNamer, prefix = ''): string {
  let out = prefix;
  path.forEach((segment, index) => {
    let text = String(segment);
    const isConfigKey =
      typeof segment === 'string' &&
      ((index === 0 && TOP_KEYS.has(segment)) || (index === 1 && path[0] === 'backoff' && BACKOFF_KEY_SET.has(segment)));
    if (isConfigKey) text = namer.key(text);
    if (PLAIN_SEGMENT.test(text)) out += out === '' ? text : `.${text}`;
    else out += `[${JSON.stringify(text)}]`;
  });
  return out;
}

/** `"5000" (a string)`, `5000 (a number)`, `null`, `a list`, `an object`. */
export function show(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string': {
      const text = value.length > 60 ? `${value.slice(0, 57)}...` : value;
      return `${JSON.stringify(text)} (a string)`;
    }
    case 'number':
      return Number.isFinite(value) ? `${value} (a number)` : `${value} (not a finite number)`;
    case 'boolean':
      return `${value} (a boolean)`;
    case 'object':
      return 'an object';
    case 'undefined':
      return 'undefined';
    default:
      return `a ${typeof value}`;
  }
}

/** The default of a key, when it has one: `SERVER_CONFIG_DEFAULTS`, `[]` for args, `{}` for records. */
export function defaultOf(path: readonly PathSegment[]): unknown {
  const [first, second] = path;
  if (path.length === 1) {
    if (first === 'args') return [];
    if (first === 'env' || first === 'headers') return {};
    if (typeof first === 'string' && Object.hasOwn(SERVER_CONFIG_DEFAULTS, first)) {
      return (SERVER_CONFIG_DEFAULTS as Readonly<Record<string, unknown>>)[first];
    }
  }
  if (path.length === 2 && first === 'backoff' && typeof second === 'string' && Object.hasOwn(SERVER_CONFIG_DEFAULTS.backoff, second)) {
    return (SERVER_CONFIG_DEFAULTS.backoff as Readonly<Record<string, unknown>>)[second];
  }
  return undefined;
}

/** Whether the key at `path` is a duration in milliseconds. */
export function isMsKey(path: readonly PathSegment[]): boolean {
  const last = path.at(-1);
  return typeof last === 'string' && last.endsWith('Ms');
}

const DURATION = /^\s*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)\s*$/i;
const BYTES = /^\s*(\d+(?:\.\d+)?)\s*(b|bytes?|k|kb|kib|m|mb|mib|g|gb|gib)\s*$/i;
const UNIT_BYTES: Readonly<Record<string, number>> = { b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };
const TRUE_WORDS = new Set(['true', 'yes', 'on', 'y', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'off', 'n', '0']);

/** `"30s"` → 30000; undefined when `text` is not a duration with a unit. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (!match?.[1] || !match[2]) return undefined;
  return Math.round(Number(match[1]) * msPerUnit(match[2].toLowerCase()));
}

function msPerUnit(unit: string): number {
  if (unit === 'ms' || unit.startsWith('milli')) return 1;
  if (unit.startsWith('s')) return 1000;
  if (unit.startsWith('m')) return 60_000;
  return 3_600_000;
}

function parseBytes(text: string): number | undefined {
  const match = BYTES.exec(text);
  if (!match?.[1] || !match[2]) return undefined;
  return Math.round(Number(match[1]) * (UNIT_BYTES[match[2][0]?.toLowerCase() ?? 'b'] ?? 1));
}

/** What a value of the wrong type should have been, as a hint; undefined when nothing obvious fits. */
export function typeHint(path: readonly PathSegment[], expected: string, value: unknown, namer: KeyNamer): string | undefined {
  const last = path.at(-1);
  if (value === null) {
    const fallback = defaultOf(path);
    return fallback === undefined ? 'leave the key out, or give it a value' : `leave the key out to use the default, ${JSON.stringify(fallback)}`;
  }
  if (expected === 'number' || expected === 'integer') {
    if (typeof value === 'number') return `write ${Math.round(value)}`;
    if (typeof value === 'string') {
      const trimmed = value.trim();
      if (/^-?\d+(\.\d+)?$/.test(trimmed)) return `write ${trimmed} without quotes`;
      const ms = isMsKey(path) ? parseDuration(trimmed) : undefined;
      if (ms !== undefined) return `write ${ms} (milliseconds, a number without quotes or unit)`;
      const bytes = last === 'maxMessageBytes' ? parseBytes(trimmed) : undefined;
      if (bytes !== undefined) return `write ${bytes} (bytes, a number without quotes or unit)`;
    }
    if (typeof value === 'boolean' && (last === 'idleStopMs' || last === 'pingIntervalMs')) return 'write 0 to turn it off';
    return undefined;
  }
  if (expected === 'boolean') {
    const word = String(value).trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return 'write true without quotes';
    if (FALSE_WORDS.has(word)) return 'write false without quotes';
    return undefined;
  }
  if (expected === 'string') {
    if (last === 'command' && Array.isArray(value) && value.every((part) => typeof part === 'string') && value.length > 0) {
      const [program, ...rest] = value as string[];
      return `put the program in command and the rest in args: command: ${JSON.stringify(program)}, args: ${JSON.stringify(rest)}`;
    }
    if (typeof value === 'number' || typeof value === 'boolean') return `write ${JSON.stringify(String(value))} in quotes`;
    return undefined;
  }
  if (expected === 'array' && last === 'args') {
    if (typeof value === 'string') {
      const parts = value.trim() === '' ? [] : value.trim().split(/\s+/);
      return `write a list with one string per argument: ${JSON.stringify(parts)}`;
    }
    return undefined;
  }
  if (expected === 'object' && (last === 'env' || last === 'headers')) {
    const separator = last === 'env' ? '=' : ':';
    if (Array.isArray(value) && value.every((entry) => typeof entry === 'string' && entry.includes(separator))) {
      const record = Object.fromEntries(
        (value as string[]).map((entry) => {
          const at = entry.indexOf(separator);
          return [entry.slice(0, at).trim(), entry.slice(at + 1).trim()];
        }),
      );
      return `write an object: ${JSON.stringify(record)}`;
    }
    return last === 'env' ? 'write an object such as { "API_KEY": "..." }' : 'write an object such as { "Authorization": "Bearer ..." }';
  }
  if (expected === 'object' && last === 'backoff') {
    const example = Object.entries(SERVER_CONFIG_DEFAULTS.backoff)
      .map(([key, fallback]) => `${namer.key(key)}: ${fallback}`)
      .join(', ');
    return `write an object such as { ${example} }, or leave it out`;
  }
  return undefined;
}

/** `a string`, `a number`, `true or false`, `a list of strings`, `an object`: what a type is called. */
export function typeName(path: readonly PathSegment[], expected: string, value: unknown): string {
  const last = path.at(-1);
  switch (expected) {
    case 'integer':
      return typeof value === 'number' ? 'a whole number' : 'a number';
    case 'number':
      return 'a number';
    case 'string':
      return 'a string';
    case 'boolean':
      return 'true or false';
    case 'array':
      return 'a list of strings';
    case 'object':
      if (last === 'env') return 'an object of variable names to string values';
      if (last === 'headers') return 'an object of header names to string values';
      return 'an object';
    default:
      return expected;
  }
}
