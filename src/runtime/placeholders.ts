/**
 * The runtime's own placeholders in a server's configuration — `${SANDBOX_ROOT}` and `${TENANT}` —
 * filled in when a server actor starts for a sandbox and a tenant. (Environment references like
 * `${GITHUB_TOKEN}` were resolved when the file was loaded.)
 */
import type { ResolvedServerConfig } from '../config/server-config.js';
import { markResolved } from '../config/server-config.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';

export interface PlaceholderValues {
  readonly SANDBOX_ROOT?: string | undefined;
  readonly TENANT: string;
}

const PLACEHOLDER = /\$\{(SANDBOX_ROOT|TENANT)\}/g;

function fill(text: string, values: PlaceholderValues, where: string, server: string): string {
  return text.replace(PLACEHOLDER, (_match, name: 'SANDBOX_ROOT' | 'TENANT') => {
    const value = values[name];
    if (value === undefined) {
      throw new McpActorsError(
        ErrorCode.ACTIVATION_FAILED,
        `server "${server}" uses \${${name}} in ${where}, but the actor was activated without a sandbox; pass { sandbox } to activate()`,
        { details: { server, placeholder: name } },
      );
    }
    return value;
  });
}

/** A copy of `config` with the placeholders filled in; a sandbox root is also offered as MCP roots. */
export function bindPlaceholders(config: ResolvedServerConfig, values: PlaceholderValues): ResolvedServerConfig {
  const name = config.name;
  const record = (entries: Readonly<Record<string, string>>, where: string): Record<string, string> =>
    Object.fromEntries(Object.entries(entries).map(([key, value]) => [key, fill(value, values, `${where}.${key}`, name)]));
  const roots = config.roots.map((root, i) => fill(root, values, `roots.${i}`, name));
  return markResolved(
    Object.freeze({
      ...config,
      args: Object.freeze(config.args.map((arg, i) => fill(arg, values, `args.${i}`, name))),
      env: Object.freeze(record(config.env, 'env')),
      headers: Object.freeze(record(config.headers, 'headers')),
      cwd: config.cwd === undefined ? undefined : fill(config.cwd, values, 'cwd', name),
      url: config.url === undefined ? undefined : fill(config.url, values, 'url', name),
      roots: Object.freeze(roots.length === 0 && values.SANDBOX_ROOT !== undefined ? [values.SANDBOX_ROOT] : roots),
    }),
  );
}
