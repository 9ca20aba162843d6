/**
 * What `agents validate` warns about because it weakens the confinement of a local (stdio) server
 * when it runs in a sandbox: `confine: false` (never confined), `confine.fallback: true` (run
 * unconfined where bubblewrap does not work), and `env` entries that look as if they moved the
 * server's home, PATH, temp dir or package caches. The runtime decides confinement from the
 * host's values only, so such an entry changes what the server sees, not what it may touch.
 */
import type { AgentsConfig } from '../config/agents-file.js';
import type { FoundProblem } from '../config/found-problem.js';

/** Names a server's env may hold that confinement does not read (compared without case). */
const HOST_ONLY_NAMES = new Set([
  'HOME',
  'PATH',
  'TMPDIR',
  'TMP',
  'TEMP',
  'USERPROFILE',
  'YARN_CACHE_FOLDER',
  'PNPM_HOME',
  'BUN_INSTALL',
  'DENO_DIR',
]);
const HOST_ONLY_PREFIXES = ['XDG_', 'NPM_CONFIG_'];

/** Whether an env name is one the runtime reads from the host, never from the server's env, to confine it. */
export function isHostOnlyName(name: string): boolean {
  const upper = name.toUpperCase();
  return HOST_ONLY_NAMES.has(upper) || HOST_ONLY_PREFIXES.some((prefix) => upper.startsWith(prefix));
}

/**
 * One warning per weakening setting, at its key path in the file (`servers.<name>.confine`,
 * `servers.<name>.env.<NAME>`).
 *
 * @example
 * confinementWarnings(await loadAgentsFile('agents.yaml')).map((w) => w.problem);
 */
export function confinementWarnings(config: AgentsConfig): FoundProblem[] {
  const found: FoundProblem[] = [];
  for (const [name, server] of Object.entries(config.servers)) {
    if (server.transport !== 'stdio') continue; // a remote server is not a process of this machine
    if (server.confine === false) {
      found.push({
        path: ['servers', name, 'confine'],
        problem:
          'confine: false runs this server unconfined even in a sandbox: its tools can read your credentials and write outside the sandbox',
        hint: 'remove the line (the server is confined wherever bubblewrap works), or keep it only for a server you trust with your account',
      });
    } else if (typeof server.confine === 'object' && server.confine.fallback === true) {
      found.push({
        path: ['servers', name, 'confine', 'fallback'],
        problem: 'fallback: true runs this server unconfined on a machine where confinement is unavailable',
        hint: 'remove it, so that the server fails to start there instead',
      });
    }
    for (const key of Object.keys(server.env)) {
      if (!isHostOnlyName(key)) continue;
      found.push({
        path: ['servers', name, 'env', key],
        problem: `${key} is passed to the server but not used to decide confinement: the runtime confines the server by the host's home, PATH, temp dir and package caches, whatever this entry says`,
        hint: `remove it unless the server itself needs this ${key}`,
      });
    }
  }
  return found;
}
