/**
 * Where an OAuth provider keeps what it learned about one server: the registered client, the
 * tokens (with when they were saved, to tell their expiry), and the discovery results.
 * `MemoryTokenStore` for a process; `FileTokenStore` for the CLI — one JSON file, mode 600 in a
 * directory of mode 700. Every change is a read-modify-write of one key under an inter-process
 * lock (`.auth.json.lock`), so two processes saving at once both keep their entries; the file is
 * replaced through an unguessable, exclusively created temporary file, so a crash never leaves
 * half a file and a link planted beside it is never written through.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { replaceAtomically } from '../files/atomic-replace.js';
import { withFileLock } from '../files/file-lock.js';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export interface StoredAuth {
  readonly clientInformation?: OAuthClientInformationMixed | undefined;
  readonly tokens?: OAuthTokens | undefined;
  /** Epoch ms when `tokens` were saved: with `expires_in`, when they expire. */
  readonly tokensSavedAt?: number | undefined;
  readonly discoveryState?: OAuthDiscoveryState | undefined;
}

export interface TokenStore {
  load(key: string): Promise<StoredAuth | undefined>;
  save(key: string, value: StoredAuth): Promise<void>;
  delete(key: string): Promise<void>;
  /** Every key with something stored. */
  keys(): Promise<string[]>;
}

export class MemoryTokenStore implements TokenStore {
  private readonly entries = new Map<string, StoredAuth>();
  load(key: string): Promise<StoredAuth | undefined> {
    return Promise.resolve(this.entries.get(key));
  }
  save(key: string, value: StoredAuth): Promise<void> {
    this.entries.set(key, value);
    return Promise.resolve();
  }
  delete(key: string): Promise<void> {
    this.entries.delete(key);
    return Promise.resolve();
  }
  keys(): Promise<string[]> {
    return Promise.resolve([...this.entries.keys()]);
  }
}

/**
 * The default token file: `$MCP_ACTORS_AUTH_FILE`, else `$XDG_CONFIG_HOME/mcp-actors/auth.json`,
 * else `~/.config/mcp-actors/auth.json` (`%APPDATA%` on Windows).
 */
export function defaultTokenFile(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (env.MCP_ACTORS_AUTH_FILE) return env.MCP_ACTORS_AUTH_FILE;
  const base = env.XDG_CONFIG_HOME || (process.platform === 'win32' && env.APPDATA) || join(homedir(), '.config');
  return join(base, 'mcp-actors', 'auth.json');
}

export class FileTokenStore implements TokenStore {
  /** Writes one after the other, so two saves never interleave their read-modify-write. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly path: string = defaultTokenFile()) {}

  async load(key: string): Promise<StoredAuth | undefined> {
    return (await this.readAll())[key];
  }

  save(key: string, value: StoredAuth): Promise<void> {
    return this.update((all) => ({ ...all, [key]: value }));
  }

  delete(key: string): Promise<void> {
    return this.update((all) => Object.fromEntries(Object.entries(all).filter(([name]) => name !== key)));
  }

  async keys(): Promise<string[]> {
    return Object.keys(await this.readAll());
  }

  private update(change: (all: Record<string, StoredAuth>) => Record<string, StoredAuth>): Promise<void> {
    const next = this.queue.then(async () => {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      // Read again under the lock: another process may have saved its own key since.
      await withFileLock(
        this.path,
        async () => replaceAtomically(this.path, `${JSON.stringify(change(await this.readAll()), null, 2)}\n`, { mode: 0o600 }),
        {
          what: `the token file ${this.path}`,
        },
      );
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async readAll(): Promise<Record<string, StoredAuth>> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, StoredAuth>) : {};
  }
}
