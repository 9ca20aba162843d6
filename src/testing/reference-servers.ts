/**
 * Stdio configurations for the reference MCP servers published by the MCP project, run from
 * node_modules (devDependencies) — never fetched at run time. For tests, demos and benchmarks.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ErrorCode, McpActorsError } from '../errors/index.js';

const require = createRequire(import.meta.url);

export type ReferenceServer = 'everything' | 'memory' | 'filesystem';

const ENTRY: Record<ReferenceServer, { pkg: string; file: string }> = {
  everything: { pkg: '@modelcontextprotocol/server-everything', file: 'dist/index.js' },
  memory: { pkg: '@modelcontextprotocol/server-memory', file: 'dist/index.js' },
  filesystem: { pkg: '@modelcontextprotocol/server-filesystem', file: 'dist/index.js' },
};

/** Absolute path of a reference server's entry script; throws a clear error if it is not installed. */
export function referenceServerPath(server: ReferenceServer): string {
  const { pkg, file } = ENTRY[server];
  try {
    return join(dirname(require.resolve(`${pkg}/package.json`)), file);
  } catch (cause) {
    throw new McpActorsError(ErrorCode.NOT_FOUND, `${pkg} is not installed; add it as a devDependency (npm install -D ${pkg})`, {
      cause,
      details: { package: pkg },
    });
  }
}

/**
 * A stdio server config for a reference server. `args` are appended (server-everything gets
 * `stdio` first; server-filesystem takes allowed directories).
 *
 * @example
 * new McpClient(referenceServerConfig('everything'));
 */
export function referenceServerConfig(
  server: ReferenceServer,
  options: { name?: string; args?: readonly string[]; env?: Record<string, string> } = {},
): { name: string; transport: 'stdio'; command: string; args: string[]; env: Record<string, string> } {
  const leading = server === 'everything' ? ['stdio'] : [];
  const env: Record<string, string> = { ...options.env };
  const pidLog = process.env.MCP_ACTORS_PID_LOG;
  if (pidLog && env.MCP_ACTORS_PID_LOG === undefined) env.MCP_ACTORS_PID_LOG = pidLog;
  return {
    name: options.name ?? server,
    transport: 'stdio',
    command: process.execPath,
    args: [referenceServerPath(server), ...leading, ...(options.args ?? [])],
    env,
  };
}
