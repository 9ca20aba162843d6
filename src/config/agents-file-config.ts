/**
 * `AgentsFileConfig`: the type of the configuration a host gives `createRuntime({ config })` as
 * objects, derived from the file's JSON Schema, so a misspelled key (`comand`) fails to compile.
 * Every key may be written as in agents.yaml (`mcp_servers`) or in camelCase (`mcpServers`), as
 * loading accepts both; every key is optional (the schema's defaults fill them in).
 */
import type { agentsFileSchema } from './agents-file-schema.js';

type Camel<S> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;

/** An object's keys, each in both spellings. */
type Keys<Props> = { readonly [K in keyof Props & string as K | Camel<K>]?: Value<Props[K]> | undefined };

/** The TypeScript type of what a schema node accepts. */
// An enum also takes any string (a value read from elsewhere is checked when loaded); keys are what must be right.
type Value<P> = P extends { readonly enum: readonly (infer E)[] }
  ? E | (string & {})
  : P extends { readonly oneOf: readonly (infer O)[] }
    ? Value<O>
    : P extends { readonly anyOf: readonly (infer O)[] }
      ? Value<O>
      : P extends { readonly then: infer T; readonly else: infer E }
        ? Value<T> | Value<E>
        : P extends { readonly type: 'string' }
          ? string
          : P extends { readonly type: 'integer' | 'number' }
            ? number
            : P extends { readonly type: 'boolean' }
              ? boolean
              : P extends { readonly items: infer I }
                ? readonly Value<I>[]
                : P extends { readonly properties: infer Inner }
                  ? Keys<Inner>
                  : P extends { readonly additionalProperties: infer A; readonly type: readonly ['object', 'null'] }
                    ? Readonly<Record<string, Value<A> | undefined>> | null
                    : P extends { readonly additionalProperties: infer A }
                      ? Readonly<Record<string, Value<A> | undefined>>
                      : unknown;

/**
 * An agents.yaml as objects: `servers`, `tools`, `skills`, `actors`, `default_tenant`.
 *
 * @example
 * const config: AgentsFileConfig = { servers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } } };
 */
export type AgentsFileConfig = Keys<(typeof agentsFileSchema)['properties']>;
