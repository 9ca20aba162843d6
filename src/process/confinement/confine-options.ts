/**
 * The defaults that fill in what a server's `confine:` setting leaves out (the setting itself is
 * described in `src/config/confine-setting.ts`).
 */

import type { ConfineNetwork, ConfineSetting } from '../../config/confine-setting.js';

export type { ConfineNetwork, ConfineOptions, ConfineSetting } from '../../config/confine-setting.js';

/**
 * Credential folders and files a confined server cannot read. A directory is replaced by an empty
 * one, a file by an empty file; what does not exist is left alone (it cannot be created either:
 * everything outside the writable paths is read-only). The host project's `.env` files are added
 * when the sandbox's project is known (see `confinement-plan.ts`).
 */
export const DEFAULT_DENIED_READS: readonly string[] = Object.freeze([
  '~/.ssh',
  '~/.aws',
  '~/.config/gcloud',
  '~/.azure',
  '~/.kube',
  '~/.gnupg',
  '~/.docker/config.json',
  '~/.netrc',
  '~/.git-credentials',
  '~/.config/gh',
  '~/.password-store',
  '~/.env',
]);

/** The package managers' caches, writable so that `npx -y`, `uvx`, `pnpm dlx` … still install. */
export const PACKAGE_CACHES: readonly string[] = Object.freeze([
  '~/.npm',
  '~/.cache',
  '~/.yarn',
  '~/.local/share/pnpm',
  '~/.bun/install/cache',
  '~/.deno',
]);

/** The refinements of a setting, with every default filled in (`undefined`: do not confine). */
export interface ResolvedConfineOptions {
  readonly network: ConfineNetwork;
  readonly deny: readonly string[];
  readonly write: readonly string[];
  readonly root: string | undefined;
  readonly project: string | undefined;
  /** Run unconfined where confinement is unavailable (the runtime's default for sandboxed servers). */
  readonly fallback: boolean;
}

export function confineOptionsOf(setting: ConfineSetting | undefined): ResolvedConfineOptions {
  const options = typeof setting === 'object' ? setting : {};
  return {
    network: options.network ?? 'all',
    deny: [...DEFAULT_DENIED_READS, ...(options.deny ?? [])],
    write: [...(options.write ?? [])],
    root: options.root,
    project: options.project,
    fallback: options.fallback ?? false,
  };
}

/** `~/x` → `<home>/x`; absolute paths unchanged; anything else is relative to `home` too. */
export function expandHome(path: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return `${home}/${path.slice(2)}`;
  return path;
}
