/**
 * Checking `agents.yaml` against its schema, and the words for each kind of mistake: which key is
 * unknown (and what was meant), which value has the wrong type or is out of range.
 */

import type { ErrorObject } from 'ajv';
import { sharedAjv } from '../registry/json-schema-validators.js';
import { CAPABILITY_KEY_MAP, FULL_TOOL_NAME, TOOL_PATTERN, agentsFileSchema, type ExecutePolicy } from './agents-file-schema.js';
import { isRecord, toSnakeKey } from './config-keys.js';
import { type FoundProblem, type PathSegment, show } from './problem-text.js';
import { closest, quotedList } from './suggest.js';

// Server entries are left to validateServerConfig, which knows their words.
// The package's shared draft-07 instance (with the tool schemas'); test/unit/config checks these schemas in strict mode.
const ajv = sharedAjv('draft-07');
const matchesShape = ajv.compile({
  ...agentsFileSchema,
  properties: { ...agentsFileSchema.properties, servers: { type: ['object', 'null'] } },
});

/** Every problem with the shape of the tools, skills and actors sections, and unknown sections. */
export function agentsSchemaProblems(data: unknown): FoundProblem[] {
  if (matchesShape(data)) return [];
  const problems: FoundProblem[] = [];
  for (const error of matchesShape.errors ?? []) {
    if ((error as { propertyName?: string }).propertyName !== undefined || error.keyword === 'if') continue;
    const problem = problemFromAjv(error, data);
    if (problem) problems.push(problem);
  }
  return problems;
}

type SchemaNode = Readonly<Record<string, unknown>>;

/** Words for execute from other tools and from YAML 1.1 booleans. */
const EXECUTE_SYNONYMS: Readonly<Record<string, ExecutePolicy>> = {
  true: 'allow',
  yes: 'allow',
  always: 'allow',
  auto: 'allow',
  false: 'deny',
  no: 'deny',
  never: 'deny',
  prompt: 'ask',
  confirm: 'ask',
  approve: 'ask',
};

function problemFromAjv(error: ErrorObject, data: unknown): FoundProblem | undefined {
  const path = parsePointer(error.instancePath, data);
  const value = error.data as unknown;
  const parent = (error.parentSchema ?? {}) as SchemaNode;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return unknownKeyProblem(path, String(params.additionalProperty), parent, value);
    case 'required': {
      const key = String(params.missingProperty);
      // A tool entry that wrote its capabilities without `overrides:` gets one problem, at those keys.
      const capabilityKeys = isRecord(value) && Object.keys(value).some((k) => Object.hasOwn(CAPABILITY_KEY_MAP, toSnakeKey(k)));
      if (key === 'overrides' && capabilityKeys) return undefined;
      const example = (schemaOf(parent, key)?.examples as unknown[] | undefined)?.[0];
      return { path: [...path, key], problem: 'is required', hint: `write ${key}: ${example === undefined ? '...' : flow(example)}` };
    }
    case 'type':
      return typeProblem(path, value, parent, params.type);
    case 'enum': {
      const allowed = (parent.enum ?? []) as readonly string[];
      const synonym = EXECUTE_SYNONYMS[String(value).toLowerCase()];
      const hint = synonym ?? (typeof value === 'string' ? closest(value, allowed) : undefined);
      return { path, problem: `must be one of ${quotedList(allowed)}, got ${show(value)}`, ...(hint ? { hint: `write "${hint}"` } : {}) };
    }
    case 'minItems':
      return { path, problem: 'must not be an empty list', hint: `leave ${String(path.at(-1))} out to include every tool of the server` };
    case 'uniqueItems': {
      const [first, second] = [Number(params.i), Number(params.j)].sort((a, b) => a - b);
      const repeated = Array.isArray(value) ? (value as unknown[])[first ?? 0] : value;
      return { path: [...path, second ?? 0], problem: `repeats item ${first} (${show(repeated)})`, hint: 'remove one of them' };
    }
    case 'propertyNames':
      return nameProblem(path, String(params.propertyName), (parent.propertyNames ?? {}) as SchemaNode);
    case 'minLength':
    case 'pattern':
      return patternProblem(path, value, parent);
    default:
      return { path, problem: error.message ?? `breaks the schema rule "${error.keyword}"` };
  }
}

/** `/skills/triage/mcp_servers/1` → `['skills', 'triage', 'mcp_servers', 1]`, numbers only for list items. */
function parsePointer(pointer: string, data: unknown): PathSegment[] {
  const path: PathSegment[] = [];
  let current = data;
  for (const raw of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const segment: PathSegment = Array.isArray(current) ? Number(key) : key;
    path.push(segment);
    current = Array.isArray(current) ? current[Number(key)] : isRecord(current) ? current[key] : undefined;
  }
  return path;
}

function schemaOf(parent: SchemaNode, key: string): SchemaNode | undefined {
  const properties = parent.properties as Record<string, SchemaNode> | undefined;
  return properties?.[key];
}

/** Words from other tools (MCP annotations, VS Code, sh) for keys spelled differently here, by section. */
const KEY_SYNONYMS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
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
    readonlyhint: 'read_only',
    readonly: 'read_only',
    read: 'read_only',
    write: 'writes',
    writable: 'writes',
    destructivehint: 'destructive',
    idempotenthint: 'idempotent',
    openworldhint: 'open_world',
  },
  actor: { tenant: 'tenant_key', permission: 'permissions', tools: 'skills' },
  permissions: { exec: 'execute', execution: 'execute', approval: 'execute', allow: 'restricted', grants: 'restricted' },
};

function unknownKeyProblem(parent: readonly PathSegment[], key: string, schema: SchemaNode, siblings: unknown): FoundProblem {
  const title = String(schema.title ?? 'this mapping');
  const allowed = Object.keys((schema.properties ?? {}) as object);
  const path = [...parent, key];
  const article = /^[aeiou]/.test(title) ? 'an' : 'a';
  const problem = title === 'agents file' ? 'is not a known section' : `is not a known key of ${article} ${title}`;
  const snake = toSnakeKey(key);
  if (snake !== key && allowed.includes(snake) && isRecord(siblings) && Object.hasOwn(siblings, snake)) {
    return { path, problem: `repeats "${snake}", which is also given`, hint: `keep only one of "${key}" and "${snake}"` };
  }
  if (title === 'tool entry' && Object.hasOwn(CAPABILITY_KEY_MAP, snake)) {
    return { path, problem, hint: `put it under overrides: overrides: { ${snake}: ${flow(isRecord(siblings) ? siblings[key] : true)} }` };
  }
  if (title === 'actor' && key === 'tools') {
    return { path, problem, hint: 'an actor gets its tools through skills: list them in a skill and write skills: [that-skill]' };
  }
  const synonym = KEY_SYNONYMS[title]?.[key.toLowerCase().replace(/[-_]/g, '')];
  const near = synonym ?? closest(key, allowed) ?? closest(snake, allowed);
  if (near !== undefined) return { path, problem, hint: `did you mean "${near}"?` };
  return { path, problem, hint: `allowed ${title === 'agents file' ? 'sections' : 'keys'}: ${allowed.join(', ')}` };
}

function typeProblem(path: readonly PathSegment[], value: unknown, schema: SchemaNode, expected: unknown): FoundProblem {
  if (schema.title === 'server inclusion') {
    return {
      path,
      problem: `must be a server name or a mapping { server, include, exclude, required, overrides }, got ${show(value)}`,
      hint: 'write - github, or - server: github',
    };
  }
  const types = Array.isArray(expected) ? (expected as string[]) : [String(expected)];
  const wanted = types.includes('object')
    ? 'a mapping (key: value)'
    : types.includes('array')
      ? 'a list'
      : types.includes('boolean')
        ? 'true or false'
        : `a ${types[0]}`;
  const problem = `must be ${wanted}, got ${show(value)}`;
  if (types.includes('boolean') && typeof value === 'string' && /^(true|false)$/i.test(value.trim())) {
    return { path, problem, hint: `write ${value.trim().toLowerCase()} without quotes` };
  }
  if (types.includes('array') && typeof value === 'string') {
    return { path, problem, hint: `write a list: [${value.split(/[\s,]+/).filter(Boolean).join(', ')}]` };
  }
  if (types.includes('string') && (typeof value === 'number' || typeof value === 'boolean')) {
    return { path, problem, hint: `write "${String(value)}" in quotes` };
  }
  const example = (schema.examples as unknown[] | undefined)?.[0];
  return example === undefined ? { path, problem } : { path, problem, hint: `write something like ${flow(example)}` };
}

function nameProblem(parent: readonly PathSegment[], key: string, names: SchemaNode): FoundProblem {
  const path = [...parent, key];
  const problem = `is not a valid name: must be ${String(names.description ?? 'a plain name')}`;
  const section = parent[0];
  if (section === 'tools' && parent.length === 1 && !key.includes('/')) {
    return { path, problem, hint: `write "<server>/${key}", such as "github/${key}"` };
  }
  if (parent.at(-1) === 'overrides' && key.includes('/')) {
    return { path, problem, hint: `write "${key.slice(key.lastIndexOf('/') + 1)}": the server is given by server` };
  }
  const example = (names.examples as unknown[] | undefined)?.[0];
  const fixed = key.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return { path, problem, hint: section === 'tools' || fixed === '' ? `write a name such as ${flow(example)}` : `write "${fixed}"` };
}

function patternProblem(path: readonly PathSegment[], value: unknown, schema: SchemaNode): FoundProblem {
  const text = String(value);
  const problem = text === '' ? 'must not be empty' : `must be ${String(schema.description ?? 'in the expected form')}, got ${show(value)}`;
  if (schema === TOOL_PATTERN && text.includes('/')) {
    return { path, problem, hint: `write "${text.slice(text.lastIndexOf('/') + 1)}": the server is given by server` };
  }
  if (schema === FULL_TOOL_NAME && !text.includes('/')) {
    return { path, problem, hint: `write the namespace too, such as "builtin/${text}"` };
  }
  const example = (schema.examples as unknown[] | undefined)?.[0];
  return example === undefined ? { path, problem } : { path, problem, hint: `write a value such as ${flow(example)}` };
}

/** A value as a person would write it in a YAML flow: `{ read_only: true }`, `[a, b]`, `github`. */
function flow(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(flow).join(', ')}]`;
  if (isRecord(value)) return `{ ${Object.entries(value).map(([key, inner]) => `${key}: ${flow(inner)}`).join(', ')} }`;
  if (typeof value === 'string') {
    const plain = /^[A-Za-z0-9_./*-]+$/.test(value) && !/^(true|false|null|\d.*)$/.test(value);
    return plain ? value : JSON.stringify(value);
  }
  return String(value);
}

/** Keys the file may also spell in camelCase (as TypeScript does), by where they appear. */
const CAMEL_SPELLINGS = {
  skill: { mcpServers: 'mcp_servers', agentSkills: 'agent_skills' },
  actor: { tenantKey: 'tenant_key' },
  capabilities: { readOnly: 'read_only', openWorld: 'open_world' },
} as const;

function respell(value: unknown, spellings: Readonly<Record<string, string>>, inner?: (key: string, value: unknown) => unknown): unknown {
  if (!isRecord(value)) return value;
  const keys = Object.keys(value);
  return Object.fromEntries(
    keys.map((key) => {
      const snake = Object.hasOwn(spellings, key) ? spellings[key] : undefined;
      const target = snake !== undefined && !keys.includes(snake) ? snake : key;
      return [target, inner ? inner(target, value[key]) : value[key]];
    }),
  );
}

const eachEntry = (value: unknown, map: (entry: unknown) => unknown): unknown =>
  isRecord(value) ? Object.fromEntries(Object.keys(value).map((key) => [key, map(value[key])])) : value;

const capabilities = (value: unknown) => respell(value, CAPABILITY_SPELLINGS);
const CAPABILITY_SPELLINGS: Readonly<Record<string, string>> = CAMEL_SPELLINGS.capabilities;

/**
 * Renames the camelCase spellings of the file's own keys (`mcpServers`, `agentSkills`,
 * `tenantKey`, `readOnly`, `openWorld`) to snake_case, where they appear; names chosen by the
 * person (skills, tools, servers) are never touched. Server entries are left to
 * `serverConfigFromSnake`. A key written both ways keeps both, so the schema reports the repeat.
 */
export function normalizeKeySpellings(document: Record<string, unknown>): Record<string, unknown> {
  return respell(document, {}, (section, value) => {
    if (section === 'tools') {
      return eachEntry(value, (entry) => respell(entry, {}, (key, inner) => (key === 'overrides' ? capabilities(inner) : inner)));
    }
    if (section === 'skills') {
      return eachEntry(value, (skill) =>
        respell(skill, CAMEL_SPELLINGS.skill, (key, inner) =>
          key === 'mcp_servers' && Array.isArray(inner)
            ? inner.map((ref) => respell(ref, {}, (refKey, refs) => (refKey === 'overrides' ? eachEntry(refs, capabilities) : refs)))
            : inner,
        ),
      );
    }
    if (section === 'actors') return eachEntry(value, (actor) => respell(actor, CAMEL_SPELLINGS.actor));
    return value;
  }) as Record<string, unknown>;
}
