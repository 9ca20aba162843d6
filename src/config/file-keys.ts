/**
 * The boundary between the files' snake_case keys and the TypeScript API's camelCase: the one
 * place where keys are renamed, and where a schema's defaults are filled in. Every walk follows
 * the schema, so only the schema's own keys are renamed, never user data (env names, skill names).
 */

import type { FoundProblem, PathSegment } from './found-problem.js';

export type SchemaNode = Readonly<Record<string, unknown>>;

/** `start_timeout_ms` → `startTimeoutMs`, at the type level. */
type Camel<S> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;
/** The TypeScript type of a value a schema describes; `Filled`: with the schema's defaults filled in. */
export type ValueOf<P, Filled extends boolean> = P extends { readonly enum: readonly (infer E)[] }
  ? E
  : P extends { readonly oneOf: readonly (infer O)[] }
    ? ValueOf<O, Filled>
    : P extends { readonly then: infer T; readonly else: infer E }
      ? ValueOf<T, Filled> | ValueOf<E, Filled>
      : P extends { readonly type: 'string' }
        ? string
        : P extends { readonly type: 'integer' | 'number' }
          ? number
          : P extends { readonly type: 'boolean' }
            ? boolean
            : P extends { readonly items: infer I }
              ? readonly ValueOf<I, Filled>[]
              : P extends { readonly properties: infer Inner }
                ? Filled extends true
                  ? Output<Inner, Required<P>>
                  : Input<Inner>
                : P extends { readonly additionalProperties: infer A }
                  ? Readonly<Record<string, ValueOf<A, Filled>>>
                  : unknown;
type Required<P> = P extends { readonly required: readonly (infer R)[] } ? R : never;
/** What a host may write: every key optional, in camelCase. */
export type Input<Props> = { readonly [K in keyof Props as Camel<K>]?: ValueOf<Props[K], false> };
/** What validation hands down: keys with a default (or `Always`) always there. */
export type Output<Props, Always = never> = { readonly [K in Present<Props, Always> as Camel<K>]: ValueOf<Props[K], true> } & {
  readonly [K in Exclude<keyof Props, Present<Props, Always>> as Camel<K>]?: ValueOf<Props[K], true>;
};
/** `startTimeoutMs` → `start_timeout_ms`. */
export const toSnakeKey = (camel: string): string => camel.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
/** `start_timeout_ms` → `startTimeoutMs`. */
export const toCamelKey = (snake: string): string => snake.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

type Present<Props, Always> = {
  [K in keyof Props]: Props[K] extends { readonly default: unknown } ? K : K extends Always ? K : never;
}[keyof Props];

/** A non-null, non-array object, whose own keys can be read. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema that describes an object: the node itself, or the object branch of `if/then/else`. */
const objectSchema = (node: SchemaNode | undefined): SchemaNode | undefined =>
  node?.if === undefined ? node : (node.else as SchemaNode | undefined);
export const propertiesOf = (node: SchemaNode | undefined) =>
  objectSchema(node)?.properties as Readonly<Record<string, SchemaNode>> | undefined;

/** The schema of `value[key]` when `value` has schema `node`, and whether `key` is one of the schema's own keys. */
export function childOf(node: SchemaNode | undefined, key: PathSegment): { node: SchemaNode | undefined; own: boolean } {
  const properties = propertiesOf(node);
  if (typeof key === 'string' && properties && Object.hasOwn(properties, key)) return { node: properties[key], own: true };
  const inner = typeof key === 'number' ? node?.items : objectSchema(node)?.additionalProperties;
  return { node: typeof inner === 'object' ? (inner as SchemaNode) : undefined, own: false };
}

/** How keys are spelled: `camelCase` (the TypeScript API) or `snake_case` (files). */
export type KeyStyle = 'camelCase' | 'snake_case';

/** A path of file keys as the person spelled it: the schema's own keys restyled, user data as it is. */
export function styledPath(path: readonly PathSegment[], schema: SchemaNode, style: KeyStyle): PathSegment[] {
  let node: SchemaNode | undefined = schema;
  return path.map((segment) => {
    const child = childOf(node, segment);
    node = child.node;
    return child.own && style === 'camelCase' ? toCamelKey(String(segment)) : segment;
  });
}

/**
 * Input → file keys. `camelCase` (TypeScript): the schema's camelCase keys become snake_case and its
 * snake_case keys are refused; `both` takes either spelling, but not one key written both ways;
 * `snake_case` (a file's keys) renames nothing. Keys whose value is `undefined` are left out; only own keys are read.
 */
export function fromApiKeys(input: unknown, schema: SchemaNode, accept: KeyStyle | 'both'): { value: unknown; problems: FoundProblem[] } {
  const problems: FoundProblem[] = [];
  const walk = (value: unknown, node: SchemaNode | undefined, path: readonly PathSegment[]): unknown => {
    if (Array.isArray(value)) return value.map((item, index) => walk(item, childOf(node, index).node, [...path, index]));
    if (!isRecord(value)) return value;
    const properties = propertiesOf(node) ?? {};
    const entries: [string, unknown][] = [];
    for (const key of Object.keys(value)) {
      if (value[key] === undefined) continue;
      const snake = toSnakeKey(key);
      const camel = toCamelKey(key);
      if (accept !== 'snake_case' && snake !== key && Object.hasOwn(properties, snake)) {
        if (accept === 'both' && Object.hasOwn(value, snake)) {
          problems.push({
            path: [...path, key],
            problem: `repeats "${snake}", which is also given`,
            hint: `keep only one of "${key}" and "${snake}"`,
          });
        } else entries.push([snake, walk(value[key], properties[snake], [...path, snake])]);
      } else if (accept === 'camelCase' && camel !== key && Object.hasOwn(properties, key)) {
        problems.push({
          path: [...path, key],
          problem: 'is not a known key',
          hint: `write "${camel}" (snake_case keys belong in agents.yaml)`,
        });
      } else entries.push([key, walk(value[key], childOf(node, key).node, [...path, key])]);
    }
    // Object.fromEntries defines own properties: a `__proto__` key stays data, for validation to report.
    return Object.fromEntries(entries);
  };
  return { value: walk(input, schema, []), problems };
}

/** Validated file data → the TypeScript shape: the schema's keys in camelCase, a frozen deep copy; `fill`: with the schema's defaults. */
export function toApiKeys(value: unknown, schema: SchemaNode | undefined, fill = false): unknown {
  if (Array.isArray(value)) return Object.freeze(value.map((item) => toApiKeys(item, childOf(schema, 0).node, fill)));
  if (!isRecord(value)) return value;
  const copy = Object.fromEntries(
    Object.keys(value).map((key) => {
      const child = childOf(schema, key);
      return [child.own ? toCamelKey(key) : key, toApiKeys(value[key], child.node, fill)];
    }),
  );
  for (const [key, inner] of fill ? Object.entries(propertiesOf(schema) ?? {}) : []) {
    if (Object.hasOwn(value, key) || inner.default === undefined) continue;
    copy[toCamelKey(key)] = toApiKeys(structuredClone(inner.default), inner, fill);
  }
  return Object.freeze(copy);
}
