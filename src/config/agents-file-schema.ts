/**
 * The JSON Schema of `agents.yaml` (snake_case keys, as in the file), defaults included, and the
 * TypeScript types of what loading it returns, derived from it. Its server entries are
 * `serverConfigSchema`; names that point elsewhere (a skill naming a server) are checked in
 * `agents-file.ts`, which sees the whole file.
 */

import type { Output, ValueOf } from './file-keys.js';
import type { UnsetVariable } from './unset-variables.js';
import { type ResolvedServerConfig, nameSchema as name, serverConfigSchema } from './server-schema.js';

/** How an actor's tool calls that need approval are handled. `ask` goes through the host's approval callback. */
export const EXECUTE_POLICIES = ['allow', 'ask', 'deny'] as const;
/**
 * An actor's `permissions.execute` (agents.yaml and `ActorSpec`): the one definition, from
 * `EXECUTE_POLICIES`. A served domain server's policy is `ServedExecutePolicy`.
 */
export type ExecutePolicy = (typeof EXECUTE_POLICIES)[number];
export const DEFAULT_EXECUTE_POLICY: ExecutePolicy = 'ask';
export const DEFAULT_TENANT_KEY = 'org_id';
/** The sections of the file, in the order the README documents them. */
export const AGENTS_FILE_SECTIONS = ['servers', 'tools', 'skills', 'actors'] as const;

const list = <const T, const Extra>(items: T, description: string, extra: Extra) =>
  ({ type: 'array', items, uniqueItems: true, description, ...extra }) as const;
const flag = (description: string) => ({ type: 'boolean', description }) as const;
/** Two capabilities that cannot both hold of one tool. */
const clash = <A extends string, B extends string>(a: A, atA: boolean, b: B, atB: boolean, description: string) =>
  ({ description, not: { required: [a, b], properties: { [a]: { const: atA }, [b]: { const: atB } } } }) as const;

const fullToolName = {
  type: 'string',
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*/[^\\s/]+$',
  description: 'a full tool name, "<namespace>/<tool>"',
  examples: ['builtin/now'],
} as const;
const toolPattern = {
  type: 'string',
  pattern: '^[^\\s/]+$',
  description: 'a tool name or a glob pattern (* and ?), without the server name',
  examples: ['read_*'],
} as const;

/** Replaces the capabilities the registry infers from a tool's name and annotations. */
export const capabilityOverridesSchema = {
  type: 'object',
  additionalProperties: false,
  description: "Replaces the capabilities the registry infers from a tool's name and annotations.",
  examples: [{ read_only: true }],
  properties: {
    read_only: flag('The tool only reads.'),
    writes: flag('The tool changes something.'),
    destructive: flag('The tool may delete or overwrite (implies writes).'),
    idempotent: flag('Calling the tool twice with the same arguments does no more than once.'),
    open_world: flag('The tool reaches outside systems (the web, other services).'),
  },
  allOf: [
    clash('read_only', true, 'writes', true, 'a read-only tool does not write: keep one of them'),
    clash('read_only', true, 'destructive', true, 'a destructive tool writes: keep one of them'),
    clash('destructive', true, 'writes', false, 'a destructive tool writes: keep one of them'),
  ],
} as const;

const serverInclusion = {
  if: { type: 'string' },
  then: name('a server name'),
  else: {
    title: 'a server name or a mapping { server, include, exclude, required, overrides }',
    type: 'object',
    additionalProperties: false,
    required: ['server'],
    examples: ['github', { server: 'github', include: ['read_*'] }],
    properties: {
      server: name('a server name'),
      include: list(toolPattern, 'Only the tools matching one of these. Leave include out to include every tool of the server.', {
        minItems: 1,
      }),
      exclude: list(toolPattern, 'None of the tools matching one of these.', {}),
      required: { type: 'boolean', default: false, description: 'Activation fails when this server cannot start.' },
      overrides: {
        type: 'object',
        default: {},
        description: 'Capability overrides per tool name, merged key by key over the tools section (the skill wins).',
        propertyNames: {
          pattern: '^[^\\s/*?]+$',
          description: 'a tool name, without the server name or wildcards',
          examples: ['move_file'],
        },
        additionalProperties: capabilityOverridesSchema,
      },
    },
  },
} as const;

const skill = {
  title: 'skill',
  type: 'object',
  additionalProperties: false,
  properties: {
    description: { type: 'string' },
    mcp_servers: {
      type: 'array',
      items: serverInclusion,
      default: [],
      description: 'Servers whose tools the skill includes: a name, or { server, include, exclude, required, overrides }.',
    },
    tools: list(fullToolName, 'Built-in and custom tools by full name.', { default: [] }),
    agent_skills: list(
      { type: 'string', minLength: 1, description: 'a path to a folder that holds a SKILL.md', examples: ['./skills/pdf'] },
      'Agent Skill folders, relative to the file (absolute once loaded).',
      { default: [] },
    ),
  },
} as const;

const actor = {
  title: 'actor',
  type: 'object',
  additionalProperties: false,
  properties: {
    description: { type: 'string' },
    skills: list(name('a skill name'), 'The skills whose tools the actor may use.', { default: [] }),
    permissions: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        execute: {
          type: 'string',
          enum: EXECUTE_POLICIES,
          default: DEFAULT_EXECUTE_POLICY,
          description:
            "Tool calls that need approval. allow: run them without asking; ask: the host's approve callback decides; deny: refuse them.",
        },
        restricted: list(fullToolName, 'Restricted tools this actor may call anyway, by full name.', { default: [] }),
      },
    },
    tenant_key: {
      type: 'string',
      minLength: 1,
      pattern: '^[A-Za-z_][A-Za-z0-9_.-]*$',
      default: DEFAULT_TENANT_KEY,
      description: 'a claim name of letters, digits, "_", "." and "-", starting with a letter or "_"',
      examples: [DEFAULT_TENANT_KEY],
    },
  },
} as const;

const section = <Entry, Names>(entry: Entry, names: Names, description: string) =>
  ({ type: ['object', 'null'], propertyNames: names, additionalProperties: entry, default: {}, description }) as const;

const toolEntry = {
  type: 'object',
  additionalProperties: false,
  required: ['overrides'],
  properties: { overrides: capabilityOverridesSchema },
} as const;
const toolKey = {
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*/[^\\s/*?]+$',
  description: 'a tool name with its server, "<server>/<tool>", without wildcards',
  examples: ['github/create_issue'],
} as const;
const { $schema: _schema, required: _required, ...serverEntry } = serverConfigSchema;

/**
 * The JSON Schema of the whole `agents.yaml`, for editors (`# yaml-language-server: $schema=...`)
 * and for loading. Loading checks more than it says: names that must exist elsewhere, rules across keys.
 */
export const agentsFileSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'agents file',
  description: 'MCP servers, per-tool overrides, skills and actors for mcp-actors.',
  type: ['object', 'null'],
  additionalProperties: false,
  patternProperties: { '^x-': { description: 'Ignored: a place for YAML anchors (&defaults) to merge with <<: *defaults.' } },
  properties: {
    servers: section(serverEntry, name('a server name'), 'MCP servers, keyed by name.'),
    tools: section(toolEntry, toolKey, 'Capability overrides per MCP tool, keyed by "<server>/<tool>".'),
    skills: section(skill, name('a skill name'), 'Skills, keyed by name.'),
    actors: section(actor, name('an actor name'), 'Actors, keyed by name.'),
    default_tenant: {
      type: 'string',
      minLength: 1,
      description: 'The tenant the agents CLI acts for when --tenant is not given (default: local).',
    },
  },
} as const;

/** Capability overrides of one tool, in camelCase (`readOnly`). */
export type CapabilityOverrides = ValueOf<typeof capabilityOverridesSchema, true>;
/** One server included by a skill: the tools it keeps (`include`, then `exclude`) and their overrides. */
export type SkillServerRef = ValueOf<(typeof serverInclusion)['else'], true>;
/** A skill; `agentSkills` are absolute paths of Agent Skill folders. */
export type SkillConfig = { readonly name: string; readonly mcpServers: readonly SkillServerRef[] } & Omit<
  Output<(typeof skill)['properties']>,
  'mcpServers'
>;
export type ActorConfig = { readonly name: string } & Output<(typeof actor)['properties']>;
export interface AgentsConfig {
  readonly servers: Readonly<Record<string, ResolvedServerConfig>>;
  /** Keyed by `<server>/<tool>`. */
  readonly tools: Readonly<Record<string, ValueOf<typeof toolEntry, true>>>;
  readonly skills: Readonly<Record<string, SkillConfig>>;
  readonly actors: Readonly<Record<string, ActorConfig>>;
  /** The file the configuration was read from, when there was one. */
  readonly source?: string;
  /** `default_tenant`: the tenant the CLI acts for when `--tenant` is not given. */
  readonly defaultTenant?: string;
  /**
   * Per server, the `${VAR}` references of its entry that were not set (loaded with
   * `unsetVariables: 'per-server'`, as a runtime does): that server alone cannot start.
   */
  readonly unsetVariables?: Readonly<Record<string, readonly UnsetVariable[]>>;
}
