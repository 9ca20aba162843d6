/**
 * The hook between a server's command and its spawn: a pure function from the command, its
 * arguments and environment and a `ConfinementPlan` to the `bwrap` command line that runs the
 * same server confined. No I/O here — the plan was made (paths checked, proxy started) before.
 *
 * What the command line does, in bwrap's order (later mounts win):
 * - `--ro-bind / /`: the whole host read-only;
 * - `--dev /dev --proc /proc`: a fresh /dev and a /proc of the new PID namespace;
 * - `--tmpfs <tmpdir>` then `--remount-ro <tmpdir>`: the host's temp dir (other sandboxes, other
 *   tenants) is replaced by an empty read-only one;
 * - `--bind` of each writable path (sandbox root, the server's own temp dir, package caches);
 * - `--ro-bind` of what stays read-only inside them (a worktree's `.git` link);
 * - `--tmpfs <dir>` / `--ro-bind /dev/null <file>` over every denied path;
 * - `--unshare-net` unless the network is `all`; with an allowlist, the bridge (`confine-bridge.mjs`)
 *   runs first inside and relays 127.0.0.1:<port> to the host's proxy on a unix socket;
 * - `--unshare-pid --die-with-parent`: the server is in its own PID namespace, whose init is killed
 *   with bwrap and bwrap with its parent — so the whole tree dies with the host, reaper or not.
 *
 * No `--new-session`: the transport spawns bwrap as a process-group leader (`detached`), which
 * already leaves the server without a controlling terminal, and keeps the whole tree in the
 * group the transport signals.
 */

export interface ConfinementPlan {
  /** Absolute path of the `bwrap` executable. */
  readonly bwrap: string;
  /** Existing absolute directories the server may write (sandbox root, own temp dir, caches). */
  readonly writable: readonly string[];
  /** Existing absolute paths to hide: directories become empty, files empty. */
  readonly hidden: readonly { readonly path: string; readonly kind: 'directory' | 'file' }[];
  /** The host's temp directory, replaced by an empty read-only one. */
  readonly hostTmp: string;
  /** The server's own temp directory (one of `writable`); becomes its TMPDIR. */
  readonly ownTmp: string;
  /** Existing absolute directories to keep readable although they lie under `hostTmp` (the cwd, the command's folder). */
  readonly readable: readonly string[];
  /**
   * Existing absolute paths inside a writable directory that stay read-only (a git worktree's
   * `.git` link at the sandbox root): bound over themselves, they can be neither written nor
   * replaced (a mount point cannot be renamed over or removed).
   */
  readonly readOnly?: readonly string[];
  readonly network: NetworkPlan;
}

export type NetworkPlan =
  | { readonly kind: 'all' }
  | { readonly kind: 'none' }
  | {
      readonly kind: 'allowlist';
      /** The host proxy's unix socket (its folder is bound read-only into the sandbox). */
      readonly socket: string;
      /** The port the bridge listens on inside (127.0.0.1). */
      readonly port: number;
      /** `node` and the bridge script that relays the port to the socket. */
      readonly node: string;
      readonly bridge: string;
    };

export interface SpawnCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The box every confined process starts from: dies with its parent, own PID and IPC namespaces,
 * the whole host read-only, a fresh /dev and a /proc of its own. Also the rollback worker's
 * (`sandbox/confined-rollback.ts`).
 */
export const READ_ONLY_HOST: readonly string[] = [
  '--die-with-parent',
  '--unshare-pid',
  '--unshare-ipc',
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
];

/**
 * @example
 * const spawnable = confineCommand('npx', ['-y', '@modelcontextprotocol/server-filesystem', root], env, plan);
 * spawn(spawnable.command, spawnable.args, { env: spawnable.env, detached: true });
 */
export function confineCommand(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  plan: ConfinementPlan,
): SpawnCommand {
  const bw: string[] = [...READ_ONLY_HOST];
  bw.push('--tmpfs', plan.hostTmp);
  for (const dir of plan.readable) bw.push('--ro-bind', dir, dir);
  for (const dir of plan.writable) bw.push('--bind', dir, dir);
  for (const path of plan.readOnly ?? []) bw.push('--ro-bind', path, path);
  if (plan.network.kind === 'allowlist') {
    const folder = dirnameOf(plan.network.socket);
    bw.push('--ro-bind', folder, folder);
  }
  bw.push('--remount-ro', plan.hostTmp);
  for (const hidden of plan.hidden) {
    if (hidden.kind === 'directory') bw.push('--tmpfs', hidden.path, '--remount-ro', hidden.path);
    else bw.push('--ro-bind', '/dev/null', hidden.path);
  }
  if (plan.network.kind !== 'all') bw.push('--unshare-net');

  const confinedEnv: Record<string, string> = {
    ...env,
    TMPDIR: plan.ownTmp,
    TMP: plan.ownTmp,
    TEMP: plan.ownTmp,
    MCP_ACTORS_CONFINED: '1',
  };
  if (plan.network.kind === 'allowlist') {
    const proxy = `http://127.0.0.1:${plan.network.port}`;
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'ALL_PROXY', 'all_proxy']) confinedEnv[name] = proxy;
    confinedEnv.NO_PROXY = '';
    confinedEnv.no_proxy = '';
    bw.push('--', plan.network.node, plan.network.bridge, plan.network.socket, String(plan.network.port), command, ...args);
  } else {
    bw.push('--', command, ...args);
  }
  return { command: plan.bwrap, args: bw, env: confinedEnv };
}

function dirnameOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}
