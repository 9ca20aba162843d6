/**
 * The one translator from an ajv error to a problem a person can act on: where (the key path),
 * what is wrong in plain words, and what to write instead. Everything particular to a key is read
 * from the schema: a description that starts with "a …" is what a value must be, a description's
 * sentence that starts with "Write", "Leave" or "Use" is the hint, `examples[0]` and `default` are
 * what to write, `propertyNames.title` names a key, a `not` lists keys that contradict each other.
 */

import type { ErrorObject } from 'ajv';
import { type KeyStyle, type SchemaNode, isRecord, propertiesOf, toCamelKey, toSnakeKey } from './file-keys.js';
import { SERVER_NAME_PATTERN } from './server-schema.js';
import { closest, quotedList } from './suggest.js';
import type { FoundProblem, PathSegment } from './found-problem.js';

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
  if (isRecord(value))
    return `{ ${Object.entries(value)
      .map(([key, inner]) => `${key}: ${flow(inner)}`)
      .join(', ')} }`;
  const plain = typeof value !== 'string' || (/^[A-Za-z0-9_./*-]+$/.test(value) && !/^(true|false|null|\d.*)$/.test(value));
  return plain ? String(value) : JSON.stringify(value);
}

/** Words other tools (VS Code, Docker, systemd, MCP annotations) use for our keys and values, by ours. */
const ALSO_CALLED: Readonly<Record<string, string>> = {
  command: 'cmd program executable',
  cwd: 'dir workdir workingdir workingdirectory',
  args: 'arguments argv',
  env: 'environment',
  url: 'endpoint uri serverurl',
  transport: 'type',
  restart: 'restartpolicy',
  call_timeout_ms: 'timeout timeoutms',
  start_timeout_ms: 'timeout timeoutms',
  servers: 'mcpservers mcp',
  actors: 'agents',
  tools: 'overrides capabilities',
  mcp_servers: 'servers mcp',
  agent_skills: 'skills agentskill',
  server: 'name',
  include: 'tools only allow',
  exclude: 'deny ignore',
  overrides: 'override',
  tenant_key: 'tenant',
  permissions: 'permission',
  read_only: 'readonlyhint readonly read',
  writes: 'write writable',
  destructive: 'destructivehint',
  idempotent: 'idempotenthint',
  open_world: 'openworldhint',
  execute: 'exec execution approval',
  restricted: 'allow grants',
  permanent: 'always unlessstopped',
  transient: 'onfailure onabnormal',
  temporary: 'never no none',
  'streamable-http': 'http https ws wss websocket',
  stdio: 'local process command',
  allow: 'true yes always auto',
  deny: 'false no never',
  ask: 'prompt confirm approve',
};
const normalize = (word: string): string => word.toLowerCase().replace(/[^a-z0-9]/g, '');
/** Ours for a word of theirs, among the words allowed where it was written. */
const meant = (written: string, allowed: readonly string[]): string[] =>
  Object.entries(ALSO_CALLED).flatMap(([ours, words]) =>
    words.split(' ').includes(normalize(written)) ? allowed.filter((word) => toSnakeKey(word) === ours) : [],
  );

const examples = (schema: SchemaNode | undefined): unknown[] => (Array.isArray(schema?.examples) ? schema.examples : []);
const described = (schema: SchemaNode | undefined): string => (typeof schema?.description === 'string' ? schema.description : '');
/** The description's advice ("Write 0 to …"), as a hint. */
const advice = (schema: SchemaNode | undefined): string | undefined =>
  /(?:^|\. )((?:Write|Leave|Use) .*?)\.?$/.exec(described(schema))?.[1]?.replace(/^./, (first) => first.toLowerCase());
/** What a value must be, when the description says it as "a …". */
const phrase = (schema: SchemaNode | undefined): string | undefined =>
  /^an? /.test(described(schema)) ? described(schema).split('. ')[0] : undefined;

type Key = (snake: string) => string;
const problemOf = (path: readonly PathSegment[], problem: string, hint?: string): FoundProblem =>
  hint === undefined ? { path, problem } : { path, problem, hint };

/** One problem per ajv error a person needs to see; paths are file keys, the words in `style`. */
export function problemsFromAjv(errors: readonly ErrorObject[] | null | undefined, data: unknown, style: KeyStyle): FoundProblem[] {
  const key: Key = (snake) => (style === 'camelCase' ? toCamelKey(snake) : snake);
  const all = errors ?? [];
  // A value that fits no branch of a `oneOf`: the branches it does not have the type of say nothing,
  // unless no branch has its type; then one problem lists them ("must be true or false, or an object").
  const branches = (error: ErrorObject) =>
    [...error.schemaPath.matchAll(/\/oneOf\/\d+(?=\/)/g)].map((m) => error.schemaPath.slice(0, m.index + m[0].length));
  // The branch whose own type an error is about, when it is one.
  const typed = (error: ErrorObject) =>
    error.keyword === 'type' && /\/oneOf\/\d+\/type$/.test(error.schemaPath) ? error.schemaPath.slice(0, -'/type'.length) : undefined;
  const mistyped = new Set(all.map(typed).filter((branch) => branch !== undefined));
  const oneOfOf = (branch: string) => branch.replace(/\/\d+$/, '');
  const noneFits = (oneOf: string) => all.every((error) => branches(error).every((b) => oneOfOf(b) !== oneOf || mistyped.has(b)));
  const merged = new Set<string>();
  return all.flatMap((error) => {
    if ((error as { propertyName?: string }).propertyName !== undefined || ['if', 'oneOf'].includes(error.keyword)) return [];
    const path = parsePointer(error.instancePath, data);
    const hit = branches(error).find((b) => mistyped.has(b));
    if (hit === undefined) return showing(translate(error, path, key, style), error.data) ?? [];
    const oneOf = oneOfOf(hit);
    if (!noneFits(oneOf) || merged.has(oneOf)) return [];
    merged.add(oneOf);
    // One type error of every branch's type, read as the first branch's.
    const types = all.filter((other) => oneOfOf(typed(other) ?? '') === oneOf);
    const [first = error] = types;
    return (
      showing(translate({ ...first, params: { type: types.map((other): unknown => other.params.type) } }, path, key, style), error.data) ??
      []
    );
  });
}

/** The problem with the text of the value it may quote (see `FoundProblem.shown`). */
function showing(problem: FoundProblem | undefined, value: unknown): FoundProblem | undefined {
  const shown = textsIn(value);
  return problem === undefined || shown.length === 0 ? problem : { ...problem, shown };
}

/** Every string and number in a value, as text. */
export function textsIn(value: unknown, out: string[] = [], depth = 0): string[] {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out.push(String(value));
  else if (typeof value === 'object' && value !== null && depth < 20)
    for (const inner of Object.values(value)) textsIn(inner, out, depth + 1);
  return out;
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

function translate(error: ErrorObject, path: PathSegment[], key: Key, style: KeyStyle): FoundProblem | undefined {
  const value: unknown = error.data;
  const schema = (error.parentSchema ?? {}) as SchemaNode;
  const params = error.params as Record<string, unknown>;
  const example = examples(schema)[0];
  switch (error.keyword) {
    case 'additionalProperties':
      return unknownKey(path, String(params.additionalProperty), schema, value, key);
    case 'required': {
      const missing = String(params.missingProperty);
      const inner = propertiesOf(schema)?.[missing];
      // Keys that belong inside the missing block are reported where they are ("put it under").
      if (isRecord(value) && Object.keys(value).some((written) => Object.hasOwn(propertiesOf(inner) ?? {}, toSnakeKey(written))))
        return undefined;
      const written = examples(inner)[0];
      return problemOf([...path, missing], 'is required', `write ${key(missing)}: ${written === undefined ? '...' : flow(written)}`);
    }
    case 'type':
      return problemOf(
        path,
        `must be ${wanted(schema, params.type, value, style)}, got ${show(value)}`,
        typeHint(String(path.at(-1)), params.type, value, schema, key),
      );
    case 'enum':
      return enumProblem(path, value, schema);
    case 'minimum':
    case 'maximum':
      return rangeProblem(path, value, schema);
    case 'minLength':
      return problemOf(
        path,
        'must not be empty',
        example === undefined ? `leave ${key(String(path.at(-1)))} out, or give it a value` : `write a value such as ${flow(example)}`,
      );
    case 'minItems':
      return problemOf(path, 'must not be an empty list', advice(schema));
    case 'pattern':
    case 'format':
      return textProblem(path, String(value), schema, false);
    case 'propertyNames':
      return textProblem(
        [...path, String(params.propertyName)],
        String(params.propertyName),
        (schema.propertyNames ?? {}) as SchemaNode,
        true,
      );
    case 'uniqueItems': {
      const [first = 0, second = 0] = [Number(params.i), Number(params.j)].sort((a, b) => a - b);
      return problemOf([...path, second], `repeats item ${first} (${show((value as unknown[])[first])})`, 'remove one of them');
    }
    case 'not': {
      const forbidden = (schema.not ?? {}) as { required?: string[]; properties?: Record<string, SchemaNode> };
      const [first = '', ...rest] = forbidden.required ?? [];
      const pairs = [first, ...rest].map((name) => `${key(name)}: ${String(forbidden.properties?.[name]?.const)}`);
      return problemOf([...path, first], `${pairs.join(' and ')} contradict each other`, described(schema));
    }
    default:
      return problemOf(path, error.message ?? `breaks the schema rule "${error.keyword}"`);
  }
}

function unknownKey(parent: readonly PathSegment[], written: string, schema: SchemaNode, siblings: unknown, key: Key): FoundProblem {
  const properties = propertiesOf(schema) ?? {};
  const allowed = Object.keys(properties).map(key);
  const path = [...parent, written];
  const problem = schema.title === 'agents file' ? 'is not a known section' : 'is not a known key';
  if (['__proto__', 'constructor', 'prototype'].includes(written))
    return problemOf(path, `${problem} (a JavaScript object name; it is never merged)`, 'remove it');
  const snake = toSnakeKey(written);
  const home = Object.keys(properties).find((name) => Object.hasOwn(propertiesOf(properties[name]) ?? {}, snake));
  if (home !== undefined)
    return problemOf(
      path,
      problem,
      `put it under ${key(home)}: ${key(home)}: { ${key(snake)}: ${flow(isRecord(siblings) ? siblings[written] : true)} }`,
    );
  if (schema.title === 'actor' && written === 'tools')
    return problemOf(path, problem, 'an actor gets its tools through skills: list them in a skill and write skills: [that-skill]');
  const synonyms = meant(written, allowed);
  if (synonyms.length > 0) return problemOf(path, problem, `did you mean ${quotedList(synonyms)}?`);
  const restyled = [written, snake, toCamelKey(written)];
  const near =
    allowed.find((k) => restyled.some((w) => k === `${w}Ms` || k === `${w}_ms`)) ?? restyled.map((w) => closest(w, allowed)).find(Boolean);
  if (near !== undefined) return problemOf(path, problem, `did you mean "${near}"?`);
  return problemOf(path, problem, `allowed ${schema.title === 'agents file' ? 'sections' : 'keys'}: ${allowed.join(', ')}`);
}

/** What a value of `expected` type(s) is called: `a list`, `true or false, or an object`; a schema's title "a …" says it better. */
function wanted(schema: SchemaNode, expected: unknown, value: unknown, style: KeyStyle): string {
  if (typeof schema.title === 'string' && /^an? /.test(schema.title)) return schema.title;
  const word = (type: string) => {
    if (type === 'object') return style === 'camelCase' ? 'an object' : 'a mapping (key: value)';
    if (type === 'integer') return typeof value === 'number' ? 'a whole number' : 'a number';
    return type === 'array' ? 'a list' : type === 'boolean' ? 'true or false' : `a ${type}`;
  };
  return [expected]
    .flat()
    .map(String)
    .filter((type) => type !== 'null')
    .map(word)
    .join(', or ');
}

const DURATION = /^\s*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)\s*$/i;
/** `"30s"` → 30000; undefined when `text` is not a duration with a unit. */
function parseDuration(text: string): number | undefined {
  const [, amount, unit = ''] = DURATION.exec(text) ?? [];
  const lower = unit.toLowerCase();
  const scale = lower === 'ms' || lower.startsWith('milli') ? 1 : lower.startsWith('s') ? 1000 : lower.startsWith('m') ? 60_000 : 3_600_000;
  return amount === undefined ? undefined : Math.round(Number(amount) * scale);
}

/** What a value of the wrong type should have been; undefined when nothing obvious fits. */
function typeHint(last: string, types: unknown, value: unknown, schema: SchemaNode, key: Key): string | undefined {
  const expected = String([types].flat()[0]);
  const text = typeof value === 'string' ? value.trim() : undefined;
  /** The value as a word, for a boolean written another way (`yes`, `"on"`, `1`). */
  const word = String(value).trim().toLowerCase();
  if (value === null)
    return schema.default === undefined
      ? 'leave the key out, or give it a value'
      : `leave the key out to use the default, ${JSON.stringify(schema.default)}`;
  if ((expected === 'number' || expected === 'integer') && typeof value !== 'boolean') {
    if (typeof value === 'number') return `write ${Math.round(value)}`;
    if (text !== undefined && /^-?\d+(\.\d+)?$/.test(text)) return `write ${text} without quotes`;
    const ms = text !== undefined && last.endsWith('_ms') ? parseDuration(text) : undefined;
    if (ms !== undefined) return `write ${ms} (milliseconds, a number without quotes or unit)`;
  }
  if (expected === 'boolean' && ['true', 'yes', 'on', 'y', '1'].includes(word)) return 'write true without quotes';
  if (expected === 'boolean' && ['false', 'no', 'off', 'n', '0'].includes(word)) return 'write false without quotes';
  if (
    expected === 'string' &&
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((part) => typeof part === 'string') &&
    last === 'command'
  ) {
    const [program, ...rest] = value;
    return `put the program in ${key('command')} and the rest in ${key('args')}: command: ${JSON.stringify(program)}, args: ${JSON.stringify(rest)}`;
  }
  if (expected === 'string' && (typeof value === 'number' || typeof value === 'boolean')) return `write "${String(value)}" in quotes`;
  if (expected === 'array' && text !== undefined)
    return `write a list: ${JSON.stringify(text.split(last === 'args' ? /\s+/ : /[\s,]+/).filter(Boolean))}`;
  const separator =
    Array.isArray(value) && ['=', ':'].find((sign) => value.every((entry) => typeof entry === 'string' && entry.includes(sign)));
  if (expected === 'object' && separator) {
    const pairs = (value as string[]).map((entry) => [
      entry.slice(0, entry.indexOf(separator)).trim(),
      entry.slice(entry.indexOf(separator) + 1).trim(),
    ]);
    return `write an object: ${JSON.stringify(Object.fromEntries(pairs))}`;
  }
  if (examples(schema).length > 0) return `write ${examples(schema).map(flow).join(', or ')}`;
  const defaults = Object.entries(propertiesOf(schema) ?? {}).filter(([, inner]) => inner.default !== undefined);
  if (expected === 'object' && defaults.length > 0)
    return `write an object such as { ${defaults.map(([k, inner]) => `${key(k)}: ${flow(inner.default)}`).join(', ')} }, or leave it out`;
  return advice(schema);
}

function enumProblem(path: PathSegment[], value: unknown, schema: SchemaNode): FoundProblem {
  const allowed = (schema.enum ?? []) as readonly string[];
  const problem = `must be one of ${quotedList(allowed)}, got ${show(value)}`;
  if (typeof value !== 'string') return problemOf(path, problem);
  const exact = allowed.find((candidate) => normalize(candidate) === normalize(value));
  if (exact !== undefined) return problemOf(path, problem, `write "${exact}"`);
  const [ours] = meant(value, allowed);
  // The description says what each value means: "permanent: always restart; transient: …".
  const meaning = ours === undefined ? undefined : new RegExp(`\\b${ours}: ([^;.]+)`).exec(described(schema))?.[1];
  if (ours !== undefined) return problemOf(path, problem, `use "${ours}"${meaning === undefined ? '' : ` (${meaning})`}`);
  const near = closest(value, allowed);
  return problemOf(path, problem, near === undefined ? undefined : `did you mean "${near}"?`);
}

function rangeProblem(path: PathSegment[], value: unknown, schema: SchemaNode): FoundProblem {
  const { minimum: min = -Infinity, maximum: max = Infinity } = schema as { minimum?: number; maximum?: number };
  const number = typeof value === 'number' ? value : Number.NaN;
  const bound = max - min <= 100 ? `between ${min} and ${max}` : number > max ? `at most ${max}` : `${min} or more`;
  const percent = max === 1 && number >= 5 && number <= 100 ? `write ${number / 100} for ${number}%` : undefined;
  const fallback = String(path.at(-1)).endsWith('_ms')
    ? `write a duration in milliseconds such as ${JSON.stringify(schema.default ?? 1000)}`
    : `write a value such as ${flow(schema.default ?? min)}`;
  return problemOf(path, `must be ${bound}, got ${typeof value === 'number' ? value : show(value)}`, percent ?? advice(schema) ?? fallback);
}

/** A string (a value, or a key when `isName`) that breaks its schema's pattern or format. */
function textProblem(path: PathSegment[], text: string, schema: SchemaNode, isName: boolean): FoundProblem {
  if (schema.format === 'uri') return urlProblem(text, path);
  if (isName && typeof schema.title === 'string') return problemOf(path, `is not a valid name for ${schema.title}`, described(schema));
  const must = `must be ${phrase(schema) ?? 'in the expected form'}`;
  const problem = isName ? `is not a valid name: ${must}` : text === '' ? 'must not be empty' : `${must}, got ${show(text)}`;
  const tail = text.slice(text.lastIndexOf('/') + 1);
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern) : undefined;
  if (text.includes('/') && String(schema.pattern).includes('/') && pattern?.test(tail))
    return problemOf(path, problem, `write "${tail}": the server is given by server`);
  const [example] = examples(schema);
  const [, placeholder] = /"<(\w+)>\//.exec(described(schema)) ?? [];
  if (!text.includes('/') && placeholder !== undefined)
    return problemOf(path, problem, `write "<${placeholder}>/${text}", such as "${String(example).split('/')[0]}/${text}"`);
  const fixed = text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  if (schema.pattern === SERVER_NAME_PATTERN && fixed !== '') return problemOf(path, problem, `write "${fixed}"`);
  return problemOf(path, problem, example === undefined ? undefined : `write a value such as ${flow(example)}`);
}

/** The url must parse, be http:// or https://, and name a host. */
export function urlProblem(url: string, path: readonly PathSegment[] = ['url']): FoundProblem {
  const problem = `must be an http:// or https:// URL, got ${show(url)}`;
  if (/^wss?:\/\//i.test(url))
    return problemOf(
      path,
      problem,
      `WebSocket is not supported: write the server's http(s) endpoint, such as "${url.replace(/^ws/i, 'http')}"`,
    );
  if (!url.includes('://') && /^[A-Za-z0-9.-]+(:\d+)?(\/.*)?$/.test(url)) return problemOf(path, problem, `write "http://${url}"`);
  return problemOf(path, problem, 'write a full address such as "http://localhost:3000/mcp"');
}
