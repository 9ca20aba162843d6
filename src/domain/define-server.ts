/**
 * `defineServer`: the one MCP server a domain exposes (ADR-004-F: "every domain exposes one MCP
 * server with typed tools"). The same definition runs in-process (`registerInProcessServer`) and
 * as a real MCP server (`serveOverStdio`): extracting a domain is a transport swap.
 */
import { ConfigError, type ConfigProblem } from '../errors/index.js';
import { TOOL_NAME_PATTERN, domainToolProblems, type DomainTool } from './define-tool.js';

export interface DomainServer {
  /** The server's name; the registry namespace by default, so it cannot contain "/". */
  readonly name: string;
  readonly tools: readonly DomainTool[];
  readonly version?: string;
}

export interface DomainServerDefinition {
  readonly name: string;
  readonly version?: string;
  readonly tools: readonly DomainTool[];
}

/**
 * Checks every tool (as `defineTool` does) and that no two share a name, and returns a frozen
 * server. Throws one `ConfigError` listing every problem found.
 *
 * @example
 * export const roster = defineServer({ name: 'roster', version: '1.0.0', tools: [listShifts, proposeAssignment] });
 */
export function defineServer(server: DomainServerDefinition): DomainServer {
  const problems: ConfigProblem[] = [];
  // A JavaScript caller can pass nothing at all.
  const given = server as Partial<DomainServerDefinition> | undefined;
  const name: unknown = given?.name;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    problems.push({
      path: 'name',
      problem: `must be 1-128 letters, digits, "_", "." or "-", not ${typeof name === 'string' ? JSON.stringify(name) : String(name)}`,
      hint: 'the name becomes the registry namespace, as in "roster/roster_list_shifts"',
    });
  }
  const version: unknown = given?.version;
  if (version !== undefined && typeof version !== 'string') problems.push({ path: 'version', problem: 'must be a string such as "1.0.0"' });
  const tools: unknown = given?.tools;
  if (!Array.isArray(tools)) {
    problems.push({ path: 'tools', problem: 'must be an array of tools made with defineTool' });
  } else {
    const seen = new Map<string, number>();
    tools.forEach((tool: unknown, index) => {
      const toolName = typeof tool === 'object' && tool !== null ? (tool as { name?: unknown }).name : undefined;
      const at = typeof toolName === 'string' && toolName !== '' ? `tools.${toolName}` : `tools[${index}]`;
      problems.push(...domainToolProblems(tool, at));
      if (typeof toolName !== 'string') return;
      const first = seen.get(toolName);
      if (first === undefined) seen.set(toolName, index);
      else {
        problems.push({
          path: `tools[${index}].name`,
          problem: `"${toolName}" is already the name of tools[${first}]; tool names are unique within a server`,
          hint: 'rename one of them',
        });
      }
    });
  }
  const label = typeof name === 'string' && name !== '' ? `domain server "${name}"` : 'domain server';
  if (problems.length > 0) throw new ConfigError(problems, { subject: label });
  const definition = server;
  return Object.freeze({
    name: definition.name,
    tools: Object.freeze([...definition.tools]),
    ...(definition.version === undefined ? {} : { version: definition.version }),
  });
}
