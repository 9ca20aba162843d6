/**
 * Loading `agents.yaml`: `${VAR}` references filled in, every section and every name that points
 * elsewhere checked, every mistake reported at once with its `file:line:col`.
 */

import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import { type ConfigProblem, ConfigError, messageOf } from '../errors/index.js';
import { sharedAjv } from '../registry/json-schema-validators.js';
import { toolPatternMatches } from '../registry/tool-filter.js';
import {
  AGENTS_FILE_SECTIONS,
  type AgentsConfig,
  type CapabilityOverrides,
  type SkillServerRef,
  agentsFileSchema,
  capabilityOverridesSchema,
} from './agents-file-schema.js';
import { type EnvironmentVariables, resolveEnvReferences } from './env-references.js';
import { fromApiKeys, isRecord, toApiKeys } from './file-keys.js';
import { problemsFromAjv, show } from './problem-text.js';
import type { FoundProblem, PathSegment } from './found-problem.js';
import { type ResolvedServerConfig, checkNamedServer } from './server-config.js';
import { commandProblems, placeServer } from './server-paths.js';
import { type Source, parseSource, placeProblems, renderKeyPath, throwProblems, yamlSyntaxProblems } from './source-locations.js';
import { closest } from './suggest.js';
import { type UnsetVariable, forServer, serverOfUnset } from './unset-variables.js';

export type { ActorConfig, AgentsConfig, CapabilityOverrides, SkillConfig, SkillServerRef } from './agents-file-schema.js';
export { toolPatternMatches };

export interface AgentsConfigOptions {
  /** Where `${VAR}` references are read from; `process.env` by default. */
  readonly env?: EnvironmentVariables;
  /** Relative paths are read from this folder: the file's folder, else the working directory. */
  readonly baseDir?: string;
  /** Server names defined outside the file that skills may name too (in-process domain servers). */
  readonly extraServers?: readonly string[];
  /**
   * What an unset `${VAR}` does. `'error'` (default): refuses the file. `'warn'`: a warning, and the
   * value holding it is not judged. `'per-server'` (what a runtime loads with): one in a server
   * entry makes only that server unusable (listed in `unsetVariables`, an error when it is used);
   * elsewhere it refuses the file.
   */
  readonly unsetVariables?: 'error' | 'warn' | 'per-server';
  /** Check that each stdio server's program exists and is executable (what `agents validate` does). */
  readonly checkCommands?: boolean;
}

/** What `checkAgentsFile` found: the configuration, and the warnings that did not stop it. */
export interface CheckedAgentsFile {
  readonly config: AgentsConfig;
  /** Unset `${VAR}` references (under `unsetVariables: 'warn'`), each with its `file:line:col`. */
  readonly warnings: readonly ConfigProblem[];
}

export interface ParseAgentsConfigOptions extends AgentsConfigOptions {
  /** The file name the text came from, for `file:line:col` in problems and for `baseDir`. */
  readonly file?: string;
}

// Server entries are checked one by one (checkNamedServer), so the shape check leaves them out.
const matchesShape = sharedAjv('draft-07').compile({
  ...agentsFileSchema,
  properties: { ...agentsFileSchema.properties, servers: { type: ['object', 'null'] } },
});
const consistent = sharedAjv('draft-07').compile(capabilityOverridesSchema);

/**
 * Parses the text of an `agents.yaml`. Throws a `ConfigError` listing every problem, each with
 * its key path and a `file:line:col:` position (`<input>` when no file is named).
 *
 * @example
 * const config = parseAgentsConfig('servers:\n  memory:\n    command: npx\n    args: [-y, "@modelcontextprotocol/server-memory"]\n');
 * config.servers.memory.transport; // 'stdio'
 */
export function parseAgentsConfig(text: string, options: ParseAgentsConfigOptions = {}): AgentsConfig {
  return parseChecked(text, options).config;
}

function parseChecked(text: string, options: ParseAgentsConfigOptions): CheckedAgentsFile {
  const subject = options.file === undefined ? 'agents configuration' : `agents file ${options.file}`;
  // `merge`: `<<: *defaults`, as Docker Compose files use it.
  const source = parseSource(text, options.file, { uniqueKeys: true, prettyErrors: false, merge: true });
  if (source.doc.errors.length > 0) throw new ConfigError(yamlSyntaxProblems(source), { subject, details: { file: source.file } });
  const baseDir = options.baseDir ?? (options.file === undefined ? process.cwd() : dirname(resolvePath(options.file)));
  return build(source.doc.toJS() as unknown, 'snake_case', { ...options, baseDir, subject, source });
}

/**
 * Reads and parses an `agents.yaml`; relative paths are read from its folder.
 *
 * @example
 * const config = await loadAgentsFile('agents.yaml', { env: { ...process.env, GITHUB_TOKEN: token } });
 */
export async function loadAgentsFile(path: string, options: AgentsConfigOptions = {}): Promise<AgentsConfig> {
  return (await checkAgentsFile(path, options)).config;
}

/**
 * `loadAgentsFile` that also returns its warnings (what `agents validate` runs).
 *
 * @example
 * const { warnings } = await checkAgentsFile('agents.yaml', { unsetVariables: 'warn', checkCommands: true });
 */
export async function checkAgentsFile(path: string, options: AgentsConfigOptions = {}): Promise<CheckedAgentsFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const hint =
      code === 'ENOENT'
        ? `check the path; a relative path is read from ${process.cwd()}`
        : code === 'EISDIR'
          ? 'name the file inside the folder'
          : 'check that the file is readable';
    throw new ConfigError([{ path: '', problem: `${path}: cannot be read (${messageOf(error)})`, hint }], {
      subject: `file ${path}`,
      cause: error,
    });
  }
  return parseChecked(text, { ...options, file: path });
}

/**
 * The same checks for a host that builds its configuration in code: the file's keys, or their
 * camelCase spellings (as TypeScript writes them); problems are reported in the file's keys.
 *
 * @example
 * agentsConfigFromObject({ servers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } } });
 */
export function agentsConfigFromObject(input: unknown, options: AgentsConfigOptions = {}): AgentsConfig {
  return build(input, 'both', { ...options, baseDir: resolvePath(options.baseDir ?? process.cwd()), subject: 'agents configuration' })
    .config;
}

interface BuildContext extends AgentsConfigOptions {
  readonly baseDir: string;
  readonly subject: string;
  readonly source?: Source;
  readonly file?: string;
}

function build(input: unknown, keys: 'snake_case' | 'both', context: BuildContext): CheckedAgentsFile {
  const env = context.env ?? process.env;
  // Top-level `x-` keys hold YAML anchors to merge elsewhere (as in Docker Compose); they are not read.
  const visible = isRecord(input) ? Object.fromEntries(Object.entries(input).filter(([key]) => !key.startsWith('x-'))) : (input ?? {});
  const resolved = resolveEnvReferences(visible, env);
  const expanded = { ...resolved, problems: resolved.problems.map(forServer) };
  const unset = context.unsetVariables === 'warn' ? expanded.problems.filter((problem) => problem.unset !== undefined) : [];
  const deferred =
    context.unsetVariables === 'per-server' ? expanded.problems.filter((problem) => serverOfUnset(problem) !== undefined) : [];
  const found: FoundProblem[] = expanded.problems.filter((problem) => !unset.includes(problem) && !deferred.includes(problem));
  if (!isRecord(expanded.value)) {
    const problem = `must be a mapping of sections (${AGENTS_FILE_SECTIONS.join(', ')}), got ${show(expanded.value)}`;
    throwProblems([{ path: [], problem, hint: 'start the file with servers:' }], context.subject, context.source);
  }
  const renamed = fromApiKeys(expanded.value, agentsFileSchema, keys);
  const data = renamed.value as Record<string, unknown>;
  found.push(...renamed.problems);
  if (!matchesShape(data)) found.push(...problemsFromAjv(matchesShape.errors, data, 'snake_case'));
  const entries = isRecord(data.servers) ? data.servers : {};
  const servers: Record<string, ResolvedServerConfig> = {};
  for (const [name, entry] of Object.entries(entries)) {
    const { config, problems } = checkNamedServer(name, entry, ['servers', name], 'snake_case');
    found.push(...problems);
    if (!config) continue;
    servers[name] = placeServer(config, context.baseDir);
    if (context.checkCommands) found.push(...commandProblems(name, servers[name], env.PATH ?? process.env.PATH));
  }
  found.push(...referenceProblems(data, [...Object.keys(entries), ...(context.extraServers ?? [])], context.baseDir));
  // A value that holds an unset variable is not known yet, so nothing said about it counts.
  const unknown = new Set([...unset, ...deferred].map((problem) => renderKeyPath(problem.path)));
  const judged = found.filter((problem) => !unknown.has(renderKeyPath(problem.path)));
  if (judged.length > 0) throwProblems(judged, context.subject, context.source);
  const warnings = Object.freeze(placeProblems(unset, context.source).problems);
  return { config: assemble(data, servers, context, unsetByServer(deferred, context.source)), warnings };
}

/** The deferred unset variables, by server, each with where it is written. */
function unsetByServer(deferred: readonly FoundProblem[], source: Source | undefined): Record<string, UnsetVariable[]> {
  const byServer: Record<string, UnsetVariable[]> = {};
  for (const problem of deferred) {
    const server = serverOfUnset(problem);
    const variable = problem.unset;
    // Deferred problems are the ones with a server and a variable (see the filter above).
    if (server === undefined || variable === undefined) continue;
    const key = renderKeyPath(problem.path);
    const at = source === undefined ? undefined : placeProblems([problem], source).locations[0];
    (byServer[server] ??= []).push({ variable, key, ...(at ? { at: `${at.file}:${at.line}:${at.col}` } : {}) });
  }
  return byServer;
}

/** The entries of a record whose values are records (the ones worth checking further). */
const records = (value: unknown): [string, Record<string, unknown>][] =>
  Object.entries(isRecord(value) ? value : {}).filter((entry): entry is [string, Record<string, unknown>] => isRecord(entry[1]));
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

function unknownName(path: readonly PathSegment[], kind: 'server' | 'skill', written: string, known: readonly string[]): FoundProblem {
  const section = `${kind}s`;
  const near = closest(written, known);
  const hint =
    near !== undefined
      ? `did you mean "${near}"?`
      : known.length > 0
        ? `known ${section}: ${known.join(', ')}`
        : `add it under ${section}:`;
  return { path, problem: `names ${kind} "${written}", which is not in ${section}`, hint };
}

/** Names that must exist elsewhere in the file, skills' overrides (see inclusionProblems) and Agent Skill folders. */
function referenceProblems(data: Record<string, unknown>, serverNames: readonly string[], baseDir: string): FoundProblem[] {
  const problems: FoundProblem[] = [];
  const toolOverrides = new Map<string, Record<string, unknown>>();
  for (const [key, entry] of records(data.tools)) {
    const server = key.slice(0, key.indexOf('/'));
    if (key.includes('/') && !serverNames.includes(server)) problems.push(unknownName(['tools', key], 'server', server, serverNames));
    if (isRecord(entry.overrides)) toolOverrides.set(key, entry.overrides);
  }
  for (const [skill, config] of records(data.skills)) {
    const firstAt = new Map<string, number>();
    (Array.isArray(config.mcp_servers) ? (config.mcp_servers as unknown[]) : []).forEach((ref, index) => {
      const at: PathSegment[] = ['skills', skill, 'mcp_servers', index];
      const server = typeof ref === 'string' ? ref : isRecord(ref) && typeof ref.server === 'string' ? ref.server : undefined;
      if (server === undefined) return;
      const serverPath = typeof ref === 'string' ? at : [...at, 'server'];
      if (!serverNames.includes(server)) problems.push(unknownName(serverPath, 'server', server, serverNames));
      const earlier = firstAt.get(server);
      const again = `lists server "${server}" again (also item ${earlier})`;
      if (earlier === undefined) firstAt.set(server, index);
      else problems.push({ path: serverPath, problem: again, hint: 'merge the two entries into one' });
      if (isRecord(ref)) problems.push(...inclusionProblems(at, server, ref, toolOverrides));
    });
    const folders = strings(config.agent_skills);
    folders.forEach((entry, index) => problems.push(...agentSkillProblems(['skills', skill, 'agent_skills', index], entry, baseDir)));
  }
  const skillNames = Object.keys(isRecord(data.skills) ? data.skills : {});
  for (const [actor, config] of records(data.actors)) {
    strings(config.skills).forEach((skill, index) => {
      if (!skillNames.includes(skill)) problems.push(unknownName(['actors', actor, 'skills', index], 'skill', skill, skillNames));
    });
  }
  return problems;
}

/** Overrides of a skill's server entry: consistent merged over `tools:` (the schema checks them alone), and only of included tools. */
function inclusionProblems(
  at: readonly PathSegment[],
  server: string,
  ref: Record<string, unknown>,
  toolOverrides: ReadonlyMap<string, Record<string, unknown>>,
): FoundProblem[] {
  const problems: FoundProblem[] = [];
  const include = Array.isArray(ref.include) ? strings(ref.include) : undefined;
  for (const [tool, overrides] of records(ref.overrides)) {
    const path = [...at, 'overrides', tool];
    const base = toolOverrides.get(`${server}/${tool}`);
    const clashes = base && consistent(overrides) && !consistent({ ...base, ...overrides }) ? (consistent.errors ?? []) : [];
    for (const clash of clashes) {
      const pair = (clash.parentSchema as { not?: { required?: string[] } }).not?.required ?? [];
      const [mine, theirs] = pair.sort((a) => (Object.hasOwn(overrides, a) ? -1 : 1));
      if (mine === undefined || theirs === undefined || !Object.hasOwn(overrides, mine)) continue;
      problems.push({
        path: [...path, mine],
        problem: `${mine}: ${String(overrides[mine])} here and ${theirs}: ${String(base?.[theirs])} in tools.${server}/${tool} contradict each other`,
        hint: `a skill's overrides are merged key by key over the tools section: also write ${theirs}: ${String(!base?.[theirs])} here`,
      });
    }
    if (/[/*?\s]/.test(tool)) continue; // the schema reports the name itself
    const excludedBy = strings(ref.exclude).find((pattern) => toolPatternMatches(pattern, tool));
    if (excludedBy !== undefined) {
      const problem = `overrides tool "${tool}", which exclude leaves out (${JSON.stringify(excludedBy)})`;
      problems.push({ path, problem, hint: 'remove the override, or the exclusion' });
    } else if (include !== undefined && !include.some((pattern) => toolPatternMatches(pattern, tool))) {
      problems.push({
        path,
        problem: `overrides tool "${tool}", which include does not match`,
        hint: `add "${tool}" to include, or remove the override`,
      });
    }
  }
  return problems;
}

/** Whether a skill's server entry keeps `tool`: matched by `include` (or no include), and not by `exclude`. */
export function skillIncludesTool(ref: SkillServerRef, tool: string): boolean {
  const included = ref.include === undefined || ref.include.some((pattern) => toolPatternMatches(pattern, tool));
  return included && !(ref.exclude ?? []).some((pattern) => toolPatternMatches(pattern, tool));
}

/** The overrides that apply to `<server>/<tool>`: the `tools` section's, with the skill's server entry's merged over them. */
export function overridesFor(config: AgentsConfig, server: string, tool: string, ref?: SkillServerRef): CapabilityOverrides {
  return { ...config.tools[`${server}/${tool}`]?.overrides, ...(ref?.server === server ? ref.overrides[tool] : undefined) };
}

/** An Agent Skill folder must exist and hold a SKILL.md (read elsewhere). */
function agentSkillProblems(path: readonly PathSegment[], entry: string, baseDir: string): FoundProblem[] {
  const kind = (file: string) => statSync(file, { throwIfNoEntry: false });
  const folder = resolvePath(baseDir, entry);
  const found = kind(folder);
  if (entry === '' || (found?.isDirectory() && kind(resolvePath(folder, 'SKILL.md'))?.isFile())) return [];
  if (!found) return [{ path, problem: `${folder} does not exist`, hint: `agent skill paths are relative to ${baseDir}` }];
  const notFolder = { path, problem: `${folder} is not a folder`, hint: 'name the folder that holds SKILL.md, not a file' };
  if (!found.isDirectory()) return [notFolder];
  const lower = kind(resolvePath(folder, 'skill.md'))?.isFile();
  const hint = lower ? 'rename skill.md to SKILL.md' : 'an Agent Skill folder holds a SKILL.md with its instructions';
  return [{ path, problem: `${folder} has no SKILL.md`, hint }];
}

/** The checked file in the TypeScript shape (see `toApiKeys`): skills and actors named, string server entries expanded, paths absolute. */
function assemble(
  data: Record<string, unknown>,
  servers: Record<string, ResolvedServerConfig>,
  context: BuildContext,
  unset: Record<string, UnsetVariable[]>,
): AgentsConfig {
  const api = toApiKeys(data, agentsFileSchema, true) as Record<string, unknown>;
  const named = (key: 'skills' | 'actors', more: (entry: Record<string, unknown>) => object = () => ({})) =>
    Object.freeze(Object.fromEntries(records(api[key]).map(([name, entry]) => [name, Object.freeze({ name, ...entry, ...more(entry) })])));
  const ref = (item: unknown) => (typeof item === 'string' ? toApiKeys({ server: item }, inclusionSchema, true) : item);
  return Object.freeze({
    servers: Object.freeze(servers),
    tools: Object.freeze(isRecord(api.tools) ? api.tools : {}) as AgentsConfig['tools'],
    skills: named('skills', (skill) => ({
      mcpServers: Object.freeze((skill.mcpServers as unknown[]).map(ref)),
      agentSkills: Object.freeze((skill.agentSkills as string[]).map((entry) => resolvePath(context.baseDir, entry))),
    })) as AgentsConfig['skills'],
    actors: named('actors') as AgentsConfig['actors'],
    ...(typeof api.defaultTenant === 'string' ? { defaultTenant: api.defaultTenant } : {}),
    ...(context.file === undefined ? {} : { source: context.file }),
    ...(Object.keys(unset).length === 0 ? {} : { unsetVariables: Object.freeze(unset) }),
  });
}

const inclusionSchema = agentsFileSchema.properties.skills.additionalProperties.properties.mcp_servers.items.else;
