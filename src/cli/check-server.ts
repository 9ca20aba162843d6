/**
 * `agents tool add … --check`: starts a server entry once as the file would, lists its tools and
 * stops it. The runtime's placeholders are filled as an actor would fill them: `${SANDBOX_ROOT}`
 * with a throwaway folder (removed afterwards) and `${TENANT}` with the tenant `check`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { checkNamedServer } from '../config/server-config.js';
import { placeServer } from '../config/server-paths.js';
import { bindPlaceholders } from '../runtime/placeholders.js';
import { editError } from './edit-session.js';

/** The tenant `${TENANT}` stands for while a server is checked. */
export const CHECK_TENANT = 'check';

/** Starts the server of `entry` once (relative paths from the folder of `path`); returns what to print, or throws CONFIG_INVALID. */
export async function checkServer(name: string, entry: Record<string, unknown>, path: string): Promise<string> {
  const config = checkNamedServer(name, entry, ['servers', name], 'snake_case').config;
  if (!config) return '';
  const placed = placeServer(config, dirname(resolve(process.cwd(), path)));
  const sandbox = JSON.stringify(placed).includes('${SANDBOX_ROOT}') ? await mkdtemp(join(tmpdir(), 'agents-check-')) : undefined;
  const bound = bindPlaceholders(placed, { SANDBOX_ROOT: sandbox, TENANT: CHECK_TENANT });
  const { McpClient } = await import('../client/mcp-client.js');
  const client = new McpClient({
    ...bound,
    env: { ...bound.env },
    headers: { ...bound.headers },
    args: [...bound.args],
    roots: [...bound.roots],
    maxRestarts: 0,
    restart: 'temporary',
  });
  try {
    const tools = await client.listTools({ timeoutMs: bound.startTimeoutMs });
    const filled = sandbox === undefined ? '' : ` (\${SANDBOX_ROOT} was a throwaway folder, now removed)`;
    return `server "${name}" started${filled} and lists ${tools.length} tool${tools.length === 1 ? '' : 's'}: ${tools.map((tool) => tool.name).join(', ')}\n`;
  } catch (error) {
    throw editError(
      'CONFIG_INVALID',
      `nothing was written: server "${name}" did not start (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
    );
  } finally {
    await client.dispose();
    if (sandbox !== undefined) await rm(sandbox, { recursive: true, force: true });
  }
}
