/**
 * The environment a stdio server is started with: the MCP SDK's small allowlist of the host's
 * variables (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER` on POSIX) plus what the
 * configuration names. Nothing else of the host's environment reaches the server, so a host
 * secret stays with the host unless it is configured for that server.
 */
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

/**
 * @example
 * serverEnvironment({ GITHUB_TOKEN: token }); // { HOME, PATH, ..., GITHUB_TOKEN }
 */
export function serverEnvironment(configured: Readonly<Record<string, string>>): Record<string, string> {
  return { ...getDefaultEnvironment(), ...configured };
}
