/**
 * The `mcpServers` map of Claude Desktop's `claude_desktop_config.json` (the shape of Claude Code's
 * `.mcp.json`, Cursor's and Windsurf's too), read with the same words and positions as `agents.yaml`.
 */

import { ConfigError } from '../errors/index.js';
import { checkNamedServer } from './server-config.js';
import { isRecord } from './file-keys.js';
import { type EnvironmentVariables, resolveEnvReferences } from './env-references.js';
import { show } from './problem-text.js';
import type { FoundProblem } from './found-problem.js';
import type { ResolvedServerConfig, TransportKind } from './server-config.js';
import { parseSource, throwProblems } from './source-locations.js';
import { jsonSyntaxError } from './json-syntax.js';

export interface ParseMcpServersJsonOptions {
  /** The file name the text came from, for `file:line:col` in problems. */
  readonly file?: string;
  /** Where `${VAR}` references are read from; `process.env` by default. */
  readonly env?: EnvironmentVariables;
}

/** The `type` values other hosts write, normalized (lower case, letters and digits only) → our transport. */
const TYPES: Readonly<Record<string, TransportKind>> = {
  stdio: 'stdio',
  sse: 'sse',
  http: 'streamable-http',
  streamablehttp: 'streamable-http',
};

/**
 * Parses the text of a `claude_desktop_config.json`: `{ "mcpServers": { "<name>": { "command",
 * "args", "env" } | { "url", "headers", "type"? } } }`. The transport is `stdio` for `command`, and
 * `streamable-http` for `url` unless `"type"` (or `"transport"`) says `"sse"`. An entry with
 * `"disabled": true` (as Cline and Roo write) is left out. Other top-level keys of the file (Claude's
 * own settings) are ignored. The keys of `McpServerConfig` (`restart`, `startTimeoutMs`, ...) are
 * accepted in camelCase; anything else is reported with a suggestion.
 *
 * @example
 * const servers = parseMcpServersJson(await readFile('claude_desktop_config.json', 'utf8'), { file: 'claude_desktop_config.json' });
 * servers.filesystem.transport; // 'stdio'
 */
export function parseMcpServersJson(text: string, options: ParseMcpServersJsonOptions = {}): Record<string, ResolvedServerConfig> {
  const subject = options.file === undefined ? 'mcpServers JSON' : `mcpServers file ${options.file}`;
  const source = parseSource(text, options.file);
  const empty = { offset: 0, problem: '', hint: 'write { "mcpServers": {} } and add servers to it' };
  const syntax = source.text.trim() === '' ? empty : jsonSyntaxError(source.text);
  if (syntax) {
    const { line, col } = source.lineCounter.linePos(syntax.offset);
    const problem = `${source.file}:${line}:${col}: ${syntax.problem === '' ? 'is empty' : `is not valid JSON: ${syntax.problem}`}`;
    throw new ConfigError([{ path: '', problem, hint: syntax.hint }], { subject, details: { file: source.file } });
  }
  const data = JSON.parse(source.text) as unknown;
  const entries = isRecord(data) && isRecord(data.mcpServers) ? data.mcpServers : undefined;
  const found: FoundProblem[] = entries ? [] : [topLevelProblem(data)];
  const servers: Record<string, ResolvedServerConfig> = {};
  for (const [name, entry] of Object.entries(entries ?? {})) {
    const result = importServer(name, entry, options.env ?? process.env);
    if (result.config) servers[name] = result.config;
    found.push(...result.problems);
  }
  return found.length === 0 ? Object.freeze(servers) : throwProblems(found, subject, source);
}

function topLevelProblem(data: unknown): FoundProblem {
  const example = 'write { "mcpServers": { "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] } } }';
  if (!isRecord(data)) return { path: [], problem: `must be a JSON object, got ${show(data)}`, hint: example };
  if (data.mcpServers !== undefined)
    return { path: ['mcpServers'], problem: `must be an object of servers by name, got ${show(data.mcpServers)}`, hint: example };
  return {
    path: [],
    problem: 'has no "mcpServers"',
    hint: isRecord(data.servers) ? 'rename "servers" to "mcpServers" (VS Code\'s mcp.json calls it servers)' : example,
  };
}

/** One entry: `type` mapped to a transport, `${VAR}` filled in, then `validateServerConfig`. */
function importServer(
  name: string,
  entry: unknown,
  env: EnvironmentVariables,
): { config?: ResolvedServerConfig; problems: FoundProblem[] } {
  const at = ['mcpServers', name];
  if (isRecord(entry) && entry.disabled === true) return { problems: [] };
  const expanded = resolveEnvReferences(entry, env, at);
  const problems: FoundProblem[] = [...expanded.problems];
  let input = expanded.value;
  if (isRecord(input)) {
    const { type, disabled, ...rest } = input;
    if (disabled !== undefined && typeof disabled !== 'boolean')
      problems.push({ path: [...at, 'disabled'], problem: `must be true or false, got ${show(disabled)}` });
    const transport = typeof type === 'string' ? TYPES[type.toLowerCase().replace(/[^a-z0-9]/g, '')] : undefined;
    if (type !== undefined && transport === undefined) {
      problems.push({
        path: [...at, 'type'],
        problem: `must be one of "stdio", "sse" or "http", got ${show(type)}`,
        hint: 'leave type out: command means stdio, url means http',
      });
    } else if (transport !== undefined && rest.transport !== undefined && rest.transport !== transport) {
      problems.push({
        path: [...at, 'transport'],
        problem: `says ${show(rest.transport)}, but type says ${show(type)}`,
        hint: 'keep only one of type and transport',
      });
    }
    input = { ...rest, ...(transport === undefined || rest.transport !== undefined ? {} : { transport }) };
  }
  const checked = checkNamedServer(name, input, at, 'camelCase');
  // A transport problem of an entry that wrote `type` is about `type`.
  const wroteType = isRecord(entry) && entry.transport === undefined && entry.type !== undefined;
  for (const problem of checked.problems)
    problems.push(wroteType && problem.path[at.length] === 'transport' ? { ...problem, path: [...at, 'type'] } : problem);
  return problems.length > 0 ? { problems } : checked;
}
