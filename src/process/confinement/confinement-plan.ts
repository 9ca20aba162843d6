/**
 * Whether a server runs confined, and the plan its spawn is confined by.
 *
 * The decision (`decideConfinement`) reads the setting as the runtime completed it
 * (`withSandbox`): `false` never; absent (not in a sandbox, nothing asked) never; `true` or
 * options, confined — and where the probe fails, the start fails with CONFINEMENT_UNAVAILABLE,
 * unless `fallback` (what the runtime sets for a sandboxed server whose configuration said
 * nothing): then it runs unconfined, with one warning per process.
 *
 * The plan (`planConfinement`), made before each spawn: which of the writable and denied paths
 * exist, the server's own temp directory (removed when the server is gone) and, for a network
 * allowlist, the host proxy's socket.
 */
import { lstatSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode } from '../../errors/codes.js';
import { McpActorsError } from '../../errors/mcp-actors-error.js';
import type { ConfinementPlan, NetworkPlan } from './bwrap-command.js';
import { PACKAGE_CACHES, confineOptionsOf, expandHome, type ConfineSetting } from './confine-options.js';
import { allowlistProxy } from './network-proxy.js';
import { probeConfinement } from './probe.js';

export type ConfinementDecision =
  | { readonly confined: true; readonly bwrap: string }
  | { readonly confined: false; readonly why: 'opted-out' | 'no-sandbox' | 'unavailable'; readonly reason?: string };

export interface ConfinementTarget {
  readonly serverName: string;
  /** The server's `confine` setting, as the runtime completed it (see `withSandbox`). */
  readonly setting: ConfineSetting | undefined;
  /**
   * The server's complete environment. Nothing in it decides the confinement: the `bwrap` binary
   * comes from the host's PATH, the home whose credentials are hidden and whose package caches are
   * writable is the host user's (`os.homedir()`), and a HOME the server is given is hidden too.
   */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string | undefined;
  readonly command: string;
  /** The command's arguments: a script or folder they name under the host's temp dir stays readable. */
  readonly args?: readonly string[] | undefined;
}

/**
 * The setting of a server that runs in a sandbox: the root and the project filled in, and — when
 * the configuration said nothing — confinement wherever it is available (`fallback`).
 *
 * @example
 * withSandbox(undefined, '/tmp/sbx/root', '/home/me/project'); // { root, project, fallback: true }
 */
export function withSandbox(
  setting: ConfineSetting | undefined,
  root: string | undefined,
  project: string | undefined,
): ConfineSetting | undefined {
  if (setting === false || root === undefined) return setting;
  const given = typeof setting === 'object' ? setting : {};
  return {
    ...given,
    root: given.root ?? root,
    ...((given.project ?? project) ? { project: given.project ?? project } : {}),
    ...(setting === undefined ? { fallback: true } : {}),
  };
}

/**
 * The paths a setting denies on top of the defaults, absolute (`~` is the server's HOME): what a
 * sandbox's own `git add` must not read either (`Sandbox.denyReads`). None when it is not confined.
 */
export function extraDeniedPaths(setting: ConfineSetting | undefined, home: string | undefined): string[] {
  if (typeof setting !== 'object') return [];
  return (setting.deny ?? []).map((path) => absoluteOf(path, home ?? homedir()));
}

let warned = false;

/** Throws CONFINEMENT_UNAVAILABLE when confinement is asked for and cannot be had. */
export function decideConfinement(target: Pick<ConfinementTarget, 'serverName' | 'setting' | 'env'>): ConfinementDecision {
  const { setting, serverName } = target;
  if (setting === false) return { confined: false, why: 'opted-out' };
  if (setting === undefined) return { confined: false, why: 'no-sandbox' };
  // The host's PATH, never the server's: a server's `env.PATH` (or a `bwrap` shipped in the
  // project) must not choose the program that confines it.
  const probe = probeConfinement(process.env.PATH);
  if (probe.available) return { confined: true, bwrap: probe.bwrap };
  // `fallback` is for machines without bubblewrap, not for a probe a busy machine cut short.
  if (!confineOptionsOf(setting).fallback || probe.transient) {
    throw new McpActorsError(
      ErrorCode.CONFINEMENT_UNAVAILABLE,
      `server "${serverName}" asks for OS confinement (confine: true) but this machine cannot confine it: ${probe.reason}. ` +
        `To fix: ${probe.install}; or set confine: false to run it unconfined`,
      { details: { server: serverName, reason: probe.reason, install: probe.install } },
    );
  }
  if (!warned) {
    warned = true;
    process.emitWarning(
      `mcp-actors: sandboxed servers run unconfined (${probe.reason}); only OS confinement keeps a server from writing outside its sandbox. To fix: ${probe.install}`,
      { code: 'MCP_ACTORS_UNCONFINED' },
    );
  }
  return { confined: false, why: 'unavailable', reason: probe.reason };
}

/** The decision and, when confined, the plan: what the stdio connect calls before each spawn. */
export function prepareConfinement(target: ConfinementTarget): PreparedConfinement | undefined {
  const decision = decideConfinement(target);
  return decision.confined ? planConfinement(target, decision.bwrap) : undefined;
}

export interface PreparedConfinement {
  readonly plan: ConfinementPlan;
  /** Removes the server's own temp directory (after its process is gone). */
  dispose(): void;
}

const BRIDGE_PORT = 3128;
const ENV_FILE_SCAN_DEPTH = 4;
const ENV_FILE_SCAN_LIMIT = 5_000;

export function planConfinement(target: ConfinementTarget, bwrap: string): PreparedConfinement {
  const options = confineOptionsOf(target.setting);
  // The host user's home, whatever HOME the server's env names: a server given `HOME: /var/tmp`
  // must not make the real `~/.ssh` readable or another folder's "package cache" writable.
  const home = homedir();
  const serverHome = target.env.HOME !== undefined && isAbsolute(target.env.HOME) ? resolve(target.env.HOME) : undefined;
  const hostTmp = realOr(tmpdir());
  const ownTmp = mkdtempSync(join(hostTmp, `mcp-actors-confined-${target.serverName.replace(/[^A-Za-z0-9._-]/g, '_')}-`));
  const writable = new Set<string>([ownTmp]);
  if (options.root !== undefined) writable.add(realOr(options.root));
  for (const path of [...PACKAGE_CACHES, ...options.write]) {
    const absolute = absoluteOf(path, home);
    if (kindOf(absolute) === 'directory') writable.add(absolute);
  }
  // A `.git` at the root (a worktree's link to the host repository, or a repository) stays
  // read-only: the host runs git on the sandbox, and a planted git directory would run its hooks.
  const readOnly: string[] = [];
  if (options.root !== undefined) {
    const gitEntry = join(realOr(options.root), '.git');
    if (kindOf(gitEntry) !== undefined) readOnly.push(gitEntry);
  }

  // Under the host's temp dir only what the server needs stays visible (read-only).
  const readable = new Set<string>();
  const named = (target.args ?? []).filter((arg) => isAbsolute(arg)).map((arg) => (kindOf(arg) === 'file' ? dirname(arg) : arg));
  for (const candidate of [target.cwd, home, serverHome, commandFolder(target.command), PACKAGE_ROOT, ...named]) {
    if (candidate === undefined || candidate === '') continue;
    const real = realOr(candidate);
    if (!isInside(real, hostTmp) || real === hostTmp || kindOf(real) !== 'directory') continue;
    // A script's imports resolve from the package around it (its node_modules, a build beside it):
    // the outermost package under the temp dir stays readable, not only the script's own folder.
    const visible = outermostPackage(real, hostTmp);
    if (![...writable].some((w) => isInside(visible, w) || isInside(w, visible))) readable.add(visible);
    else if (![...writable].some((w) => isInside(real, w))) readable.add(real);
  }

  const hidden: { path: string; kind: 'directory' | 'file' }[] = [];
  const seen = new Set<string>();
  const hide = (path: string): void => {
    const kind = kindOf(path);
    if (kind === undefined || seen.has(path)) return;
    seen.add(path);
    // Under the host's temp dir only what is kept readable or writable is there at all: hiding
    // anything else would have bubblewrap make a mount point in the read-only tmpfs, and fail.
    const real = realOr(path);
    if (isInside(real, hostTmp) && ![...readable, ...writable].some((dir) => isInside(real, dir))) return;
    hidden.push({ path, kind });
  };
  for (const path of options.deny) {
    hide(absoluteOf(path, home));
    if (serverHome !== undefined && serverHome !== home) hide(absoluteOf(path, serverHome));
  }
  if (options.project !== undefined) for (const file of envFiles(options.project)) hide(file);

  let network: NetworkPlan;
  if (options.network === 'all') network = { kind: 'all' };
  else if (options.network === 'none') network = { kind: 'none' };
  else {
    const proxy = allowlistProxy(options.network);
    network = { kind: 'allowlist', socket: proxy.socket, port: BRIDGE_PORT, node: process.execPath, bridge: BRIDGE_SCRIPT };
  }
  return {
    plan: { bwrap, writable: [...writable], hidden, hostTmp, ownTmp, readable: [...readable], readOnly, network },
    dispose: () => rmSync(ownTmp, { recursive: true, force: true }),
  };
}

const BRIDGE_SCRIPT = fileURLToPath(new URL('./confine-bridge.mjs', import.meta.url));

function absoluteOf(path: string, home: string): string {
  const expanded = expandHome(path, home);
  return isAbsolute(expanded) ? resolve(expanded) : resolve(home, expanded);
}

function kindOf(path: string): 'directory' | 'file' | undefined {
  try {
    const stats = lstatSync(path);
    if (stats.isDirectory()) return 'directory';
    if (stats.isFile()) return 'file';
    return undefined; // a symlink is hidden where it points, if that is listed itself
  } catch {
    return undefined;
  }
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** This package's own folder: the fixture server and the network bridge a confined server may run live there. */
const PACKAGE_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The outermost folder above `dir` (and below `top`) that holds a package.json or node_modules; else `dir`. */
function outermostPackage(dir: string, top: string): string {
  let found = dir;
  for (let at = dir; isInside(at, top) && at !== top; at = dirname(at)) {
    if (kindOf(join(at, 'package.json')) === 'file' || kindOf(join(at, 'node_modules')) === 'directory') found = at;
  }
  return found;
}

function commandFolder(command: string): string | undefined {
  return isAbsolute(command) ? dirname(command) : undefined;
}

/** `.env` and `.env.*` files of the project, a few levels deep (not in node_modules or .git). */
function envFiles(projectRoot: string): string[] {
  const found: string[] = [];
  let visited = 0;
  const walk = (dir: string, depth: number): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (++visited > ENV_FILE_SCAN_LIMIT) return;
      const path = join(dir, entry.name);
      if (entry.isFile() && (entry.name === '.env' || entry.name.startsWith('.env.'))) found.push(path);
      else if (entry.isDirectory() && depth < ENV_FILE_SCAN_DEPTH && entry.name !== 'node_modules' && entry.name !== '.git')
        walk(path, depth + 1);
    }
  };
  walk(realOr(projectRoot), 0);
  return found;
}
