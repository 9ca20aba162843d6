/**
 * The JSON Schema of `agents.yaml` (snake_case keys, as in the file), defaults included. Its server
 * entries are `serverConfigSchema`; names that point elsewhere (a skill naming a server) are checked
 * in `agents-file.ts`, which sees the whole file.
 */

import { SERVER_NAME_PATTERN, serverConfigSchema } from './server-schema.js';

/** How an actor's tool calls that need approval are handled. `ask` goes through the host's approval callback. */
export const EXECUTE_POLICIES = ['allow', 'ask', 'deny'] as const;
export type ExecutePolicy = (typeof EXECUTE_POLICIES)[number];
export const DEFAULT_EXECUTE_POLICY: ExecutePolicy = 'ask';
export const DEFAULT_TENANT_KEY = 'org_id';
/** The sections of the file, in the order the README documents them. */
export const AGENTS_FILE_SECTIONS = ['servers', 'tools', 'skills', 'actors'] as const;

const name = (what: string) =>
  ({ type: 'string', minLength: 1, pattern: SERVER_NAME_PATTERN, description: `${what}: letters, digits, ".", "_" and "-", starting with a letter or digit`, examples: ['github'] }) as const;
const list = <T>(items: T, description: string, extra: Record<string, unknown> = {}) => ({ type: 'array', items, uniqueItems: true, description, ...extra }) as const;
const flag = (description: string) => ({ type: 'boolean', description }) as const;

const FULL_TOOL_NAME = {
  title: 'full tool name',
  type: 'string',
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*/[^\\s/]+$',
  description: 'a full tool name, "<namespace>/<tool>"',
  examples: ['builtin/now'],
} as const;
const TOOL_PATTERN = {
  title: 'tool pattern',
  type: 'string',
  pattern: '^[^\\s/]+$',
  description: 'a tool name or a glob pattern (* and ?), without the server name',
  examples: ['read_*'],
} as const;

const capabilityOverrides = {
  title: 'capability overrides',
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
} as const;

const serverInclusion = {
  title: 'server inclusion',
  if: { type: 'string' },
  then: name('a server name'),
  else: {
    title: 'server inclusion',
    type: 'object',
    additionalProperties: false,
    required: ['server'],
    properties: {
      server: name('a server name'),
      include: list(TOOL_PATTERN, 'Only the tools matching one of these; every tool when left out.', { minItems: 1 }),
      exclude: list(TOOL_PATTERN, 'None of the tools matching one of these.'),
      required: { type: 'boolean', default: false, description: 'Activation fails when this server cannot start.' },
      overrides: {
        type: 'object',
        default: {},
        description: 'Capability overrides per tool name, merged key by key over the tools section.',
        propertyNames: { pattern: '^[^\\s/*?]+$', description: 'a tool name, without the server name or wildcards', examples: ['move_file'] },
        additionalProperties: capabilityOverrides,
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
    tools: list(FULL_TOOL_NAME, 'Built-in and custom tools by full name.', { default: [] }),
    agent_skills: list(
      { type: 'string', minLength: 1, description: 'a path to a folder that holds a SKILL.md', examples: ['./skills/pdf'] },
      'Agent Skill folders, relative to the file.',
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
      title: 'permissions',
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        execute: {
          type: 'string',
          enum: EXECUTE_POLICIES,
          default: DEFAULT_EXECUTE_POLICY,
          description: 'Tool calls that need approval: allow, ask (the host decides), or deny.',
        },
        restricted: list(FULL_TOOL_NAME, 'Restricted tools this actor may call anyway, by full name.', { default: [] }),
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

const section = (entry: unknown, names: Record<string, unknown>, description: string) =>
  ({ type: ['object', 'null'], propertyNames: names, additionalProperties: entry, default: {}, description }) as const;

const toolEntry = {
  title: 'tool entry',
  type: 'object',
  additionalProperties: false,
  required: ['overrides'],
  properties: { overrides: capabilityOverrides },
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
    default_tenant: { type: 'string', minLength: 1, description: 'The tenant the agents CLI acts for when --tenant is not given (default: local).' },
  },
} as const;
