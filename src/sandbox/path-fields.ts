/**
 * Which tool-call arguments hold paths. Judged from the key (its last word, on snake, camel and
 * kebab tokens) and from the JSON Schema of the field when the tool has one. Getting this wrong
 * either way costs something: a path missed reaches the server unrewritten, a text taken for a
 * path is corrupted. So the key decides for clear names (`path`, `sourcePath`, `output_dir`),
 * the schema decides for unclear ones (`target`, `jsonPath`), and content-like names (`content`,
 * `oldText`, `pattern`) are never paths.
 */

/** A JSON Schema object, as found in a tool's `inputSchema`. Only a few keywords are read. */
export type JsonSchemaObject = { readonly [keyword: string]: unknown };

/** What a field holds: paths (every string is rewritten), URIs (`file:` ones are) or neither. */
export type FieldKind = 'path' | 'uri' | 'none';

/** Last words that name a path by themselves. */
const PATH_WORDS = new Set([
  'path',
  'paths',
  'file',
  'files',
  'filename',
  'filenames',
  'filepath',
  'filepaths',
  'dir',
  'dirs',
  'directory',
  'directories',
  'folder',
  'folders',
  'root',
  'roots',
  'cwd',
  'infile',
  'outfile',
  'indir',
  'outdir',
  'workdir',
  'basedir',
  'rootdir',
  'dirpath',
]);

/** Last words that usually name a path (`move_file` has `source`/`destination`), but not always. */
const LIKELY_PATH_WORDS = new Set(['source', 'destination', 'src', 'dest']);

/** Last words that name a path only when the schema says so: `target` is as often a branch or a host. */
const MAYBE_PATH_WORDS = new Set(['target', 'targets']);

/** Words before `path` that make it something else: `jsonPath`, `urlPath`, `keyPath`, `xpath`. */
const NON_FILE_PATH_QUALIFIERS = new Set([
  'json',
  'x',
  'xml',
  'url',
  'uri',
  'api',
  'route',
  'http',
  'web',
  'key',
  'field',
  'property',
  'prop',
  'object',
  'attr',
  'attribute',
  'dom',
  'css',
  'query',
  'request',
  'endpoint',
  'jq',
]);

/** Last words of fields that hold text, never a path, whatever their description says. */
const CONTENT_WORDS = new Set([
  'content',
  'contents',
  'text',
  'data',
  'body',
  'message',
  'pattern',
  'patterns',
  'glob',
  'globs',
  'query',
  'command',
  'cmd',
  'code',
  'script',
  'name',
  'names',
  'title',
  'description',
  'comment',
  'regex',
  'diff',
  'patch',
  'prompt',
  'filter',
  'include',
  'exclude',
  'ignore',
  'match',
  'encoding',
  'mode',
  'format',
  'type',
  'id',
  'language',
]);

/** Last words of fields that hold URIs: only their `file:` values are rewritten. */
const URI_WORDS = new Set(['uri', 'uris', 'url', 'urls', 'href']);

const URI_FORMATS = new Set(['uri', 'uri-reference', 'iri', 'iri-reference']);
const PATH_FORMAT = /path|file|dir/i;
/**
 * Descriptions that point to a path. A bare "file" does not count: GitHub's `create_or_update_file`
 * describes `branch` as "Branch to create/update the file in" and `sha` as "SHA of the file being replaced".
 */
const PATH_DESCRIPTION = /\b(?:paths?|file ?names?|file ?paths?|director(?:y|ies)|folders?)\b/i;

const MAX_SCHEMA_DEPTH = 32;

/** `sourcePath` → `source path`, `output_dir` → `output dir`, `HTTPRoot` → `http root`. */
export function keyTokens(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((token) => token.toLowerCase());
}

/**
 * The kind of the field `key` with the schemas it may match (several under `anyOf`/`oneOf`;
 * none when the tool gave no schema for it).
 */
export function fieldKind(key: string, schemas: readonly JsonSchemaObject[]): FieldKind {
  const tokens = keyTokens(key);
  const last = tokens.at(-1);
  if (last === undefined) return 'none';
  const lastTwo = tokens.length >= 2 ? `${tokens.at(-2)}${last}` : last;
  const evidence = schemaEvidence(schemas);
  if (evidence === 'not-a-path') return 'none';

  if (CONTENT_WORDS.has(last) && !PATH_WORDS.has(lastTwo)) return 'none';
  if (last === 'path' || last === 'paths') {
    const qualifier = tokens.at(-2);
    if (qualifier !== undefined && NON_FILE_PATH_QUALIFIERS.has(qualifier)) {
      return evidence === 'path' ? 'path' : 'none';
    }
  }
  if (PATH_WORDS.has(last) || PATH_WORDS.has(lastTwo) || LIKELY_PATH_WORDS.has(last)) return 'path';
  if (MAYBE_PATH_WORDS.has(last)) return evidence === 'path' ? 'path' : 'none';
  if (URI_WORDS.has(last) || evidence === 'uri') return 'uri';
  return evidence === 'path' ? 'path' : 'none';
}

type Evidence = 'path' | 'uri' | 'not-a-path' | 'none';

/**
 * What the schemas say about a field. A type that cannot be a string (or array of strings), an
 * `enum`/`const`, or a format such as `date-time` rules a path out; a path-like format or a
 * description mentioning paths, files or directories points to one; `format: uri` to a URI.
 */
function schemaEvidence(schemas: readonly JsonSchemaObject[]): Evidence {
  if (schemas.length === 0) return 'none';
  let path = false;
  let uri = false;
  let ruledOut = 0;
  for (const schema of schemas) {
    const target = stringTarget(schema);
    if (target === undefined) {
      ruledOut++;
      continue;
    }
    if (own(target, 'enum') !== undefined || own(target, 'const') !== undefined) {
      ruledOut++;
      continue;
    }
    const format = own(target, 'format') ?? own(schema, 'format');
    if (typeof format === 'string') {
      if (URI_FORMATS.has(format)) uri = true;
      else if (PATH_FORMAT.test(format)) path = true;
      else {
        ruledOut++;
        continue;
      }
    }
    for (const description of [own(schema, 'description'), own(target, 'description'), own(schema, 'title')]) {
      if (typeof description === 'string' && PATH_DESCRIPTION.test(description)) path = true;
    }
  }
  if (ruledOut === schemas.length) return 'not-a-path';
  if (path) return 'path';
  return uri ? 'uri' : 'none';
}

/** The schema the strings of a field are checked against (itself, or its `items`), if strings fit. */
function stringTarget(schema: JsonSchemaObject): JsonSchemaObject | undefined {
  if (allowsType(schema, 'string')) return schema;
  if (allowsType(schema, 'array')) {
    const items = own(schema, 'items');
    if (items === undefined || items === true) return {};
    if (isSchema(items)) return allowsType(items, 'string') ? items : undefined;
    return {};
  }
  return undefined;
}

function allowsType(schema: JsonSchemaObject, type: string): boolean {
  const declared = own(schema, 'type');
  if (declared === undefined) return true;
  if (typeof declared === 'string') return declared === type;
  return Array.isArray(declared) && declared.includes(type);
}

/**
 * Resolves local `$ref`s (`#/$defs/x`, `#/definitions/x`) against `root` and flattens `allOf`,
 * `anyOf` and `oneOf`, so a field can be looked up in every branch it may take.
 */
export function expandSchema(schema: unknown, root: JsonSchemaObject | undefined, depth = 0): JsonSchemaObject[] {
  if (!isSchema(schema) || depth > MAX_SCHEMA_DEPTH) return [];
  const ref = own(schema, '$ref');
  const out: JsonSchemaObject[] = [];
  if (typeof ref === 'string' && root !== undefined) out.push(...expandSchema(resolvePointer(root, ref), root, depth + 1));
  out.push(schema);
  for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
    const branches = own(schema, keyword);
    if (Array.isArray(branches)) {
      for (const branch of branches) out.push(...expandSchema(branch, root, depth + 1));
    }
  }
  return out;
}

/** The schemas for property `key` of an object matching any of `schemas`. */
export function propertySchemas(schemas: readonly JsonSchemaObject[], key: string, root: JsonSchemaObject | undefined): JsonSchemaObject[] {
  const out: JsonSchemaObject[] = [];
  for (const schema of schemas) {
    const properties = own(schema, 'properties');
    const property = isSchema(properties) ? own(properties, key) : undefined;
    if (property !== undefined) {
      out.push(...expandSchema(property, root));
      continue;
    }
    const additional = own(schema, 'additionalProperties');
    if (isSchema(additional)) out.push(...expandSchema(additional, root));
  }
  return out;
}

/** The schemas for element `index` of an array matching any of `schemas`. */
export function itemSchemas(schemas: readonly JsonSchemaObject[], index: number, root: JsonSchemaObject | undefined): JsonSchemaObject[] {
  const out: JsonSchemaObject[] = [];
  for (const schema of schemas) {
    const prefixItems = own(schema, 'prefixItems');
    const items = own(schema, 'items');
    if (Array.isArray(prefixItems) && index < prefixItems.length) out.push(...expandSchema(prefixItems[index], root));
    else if (Array.isArray(items)) out.push(...expandSchema(items[index], root));
    else out.push(...expandSchema(items, root));
  }
  return out;
}

function resolvePointer(root: JsonSchemaObject, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isSchema(node)) node = own(node, token);
    else return undefined;
  }
  return node;
}

function isSchema(value: unknown): value is JsonSchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An own property only: `properties.constructor` must not find `Object.prototype.constructor`. */
function own(object: JsonSchemaObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}
