/**
 * Compiled JSON Schema validators for tool inputs and outputs, compiled once per schema and cached.
 * The dialect is picked per schema: draft-07 (and older) when `$schema` says so — server-everything
 * sends draft-07 — and 2020-12 otherwise, the MCP spec's default. A schema that cannot compile is
 * returned as a problem for that tool alone.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export type JsonSchema = Readonly<Record<string, unknown>>;

export type CompiledSchema =
  | { readonly ok: true; readonly validate: ValidateFunction; readonly dialect: 'draft-07' | '2020-12' }
  | { readonly ok: false; readonly problem: string };

/** One failed check: where in the value (`/edits/0/path`) and what is wrong. */
export interface SchemaViolation {
  readonly path: string;
  readonly message: string;
}

// `verbose` puts the failing value and its schema on each error, which the config's messages read.
const options = { allErrors: true, strict: false, validateFormats: true, verbose: true } as const;

/**
 * One Ajv of a dialect and how many tool schemas it compiled. Ajv keeps every schema it compiled,
 * and its validator, in the instance's own scope for good (`removeSchema` does not free them), so
 * distinct schemas past the cache's limit — a server of thousands of tools, relisted, or one whose
 * tools come and go — grew the heap about 5.5 KiB each, forever. After `CACHE_LIMIT` compiles a
 * fresh instance takes over; the old one is freed once the cache has let go of its validators
 * (the configuration's own validators, compiled at load, keep the first one).
 */
interface Generation {
  /** Siblings, both of Ajv's core class: neither is the other. */
  readonly ajv: Ajv | Ajv2020;
  compiled: number;
}

function freshAjv(dialect: 'draft-07' | '2020-12'): Generation {
  const ajv = dialect === 'draft-07' ? new Ajv(options) : new Ajv2020(options);
  addFormats.default(ajv);
  return { ajv, compiled: 0 };
}

const generations = { 'draft-07': freshAjv('draft-07'), '2020-12': freshAjv('2020-12') };

/**
 * The Ajv of each dialect (draft-07 and 2020-12), shared by tool schemas and the configuration's
 * own schemas, so each format and keyword is set up once.
 */
export function sharedAjv(dialect: 'draft-07' | '2020-12'): Ajv | Ajv2020 {
  return generations[dialect].ajv;
}

/** The Ajv a new tool schema is compiled in: a fresh one every `CACHE_LIMIT` compiles. */
function ajvForNewSchema(dialect: 'draft-07' | '2020-12'): Ajv | Ajv2020 {
  let current = generations[dialect];
  if (current.compiled >= CACHE_LIMIT) current = generations[dialect] = freshAjv(dialect);
  current.compiled += 1;
  return current.ajv;
}

const cache = new Map<string, CompiledSchema>();
const byIdentity = new WeakMap<object, CompiledSchema>();
const CACHE_LIMIT = 2_000;

function dialectOf(schema: JsonSchema): 'draft-07' | '2020-12' {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  return /draft-0[4-7]/.test(declared) ? 'draft-07' : '2020-12';
}

/** The validator for `schema`, from the cache when the same schema was compiled before. */
export function compileSchema(schema: JsonSchema): CompiledSchema {
  // The hot path sees the same schema object call after call: no need to serialise it each time.
  const known = byIdentity.get(schema);
  if (known) return known;
  const key = JSON.stringify(schema);
  const cached = cache.get(key);
  if (cached) {
    byIdentity.set(schema, cached);
    return cached;
  }
  const dialect = dialectOf(schema);
  let compiled: CompiledSchema;
  try {
    // A `$schema` that ajv does not know (draft-04, draft-06) would fail to compile: the checks
    // themselves are the same in draft-07, so validate without the declaration.
    const { $schema: _ignored, $id: _id, ...body } = schema;
    compiled = { ok: true, dialect, validate: ajvForNewSchema(dialect).compile(body) };
  } catch (error) {
    compiled = { ok: false, problem: error instanceof Error ? error.message : String(error) };
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, compiled);
  byIdentity.set(schema, compiled);
  return compiled;
}

export function violationsOf(errors: readonly ErrorObject[] | null | undefined): SchemaViolation[] {
  return (errors ?? []).map((error) => {
    const extra =
      error.keyword === 'additionalProperties'
        ? ` (${String((error.params as { additionalProperty?: string }).additionalProperty)})`
        : error.keyword === 'required'
          ? ''
          : '';
    return { path: error.instancePath || '/', message: `${error.message ?? 'is invalid'}${extra}` };
  });
}

export function describeViolations(violations: readonly SchemaViolation[]): string {
  return violations.map((v) => `${v.path} ${v.message}`).join('; ');
}
