/**
 * Server configurations written back as the `servers:` section of an agents.yaml: snake_case
 * keys, and only what differs from the defaults (a transport that `command` or `url` implies is
 * left out too), so the section reads like one a person wrote.
 */
import { isDeepStrictEqual } from 'node:util';
import { stringify } from 'yaml';
import { fromApiKeys, isRecord, toApiKeys } from '../config/file-keys.js';
import { type ResolvedServerConfig, serverConfigSchema } from '../config/server-schema.js';

export type ServersSection = Record<string, Record<string, unknown>>;

const DEFAULTS = fromApiKeys(toApiKeys({}, serverConfigSchema, true), serverConfigSchema, 'camelCase').value as Record<string, unknown>;
/** What of `value` differs from `fallback`: nested records key by key (backoff); undefined when nothing does. */
const differing = (value: unknown, fallback: unknown): unknown =>
  isRecord(value) && isRecord(fallback) && Object.keys(fallback).length > 0
    ? ((diff) => (Object.keys(diff).length > 0 ? diff : undefined))(
        Object.fromEntries(Object.entries(value).filter(([k, v]) => !isDeepStrictEqual(v, fallback[k]))),
      )
    : isDeepStrictEqual(value, fallback)
      ? undefined
      : value;

/** One server as its agents.yaml entry (without `name`: the key names it). */
export function serverEntry(config: ResolvedServerConfig): Record<string, unknown> {
  const {
    name: _name,
    transport,
    sse_fallback: fallback,
    ...rest
  } = fromApiKeys(config, serverConfigSchema, 'camelCase').value as Record<string, unknown>;
  const entry: Record<string, unknown> = transport === (config.command === undefined ? 'streamable-http' : 'stdio') ? {} : { transport };
  for (const [key, value] of Object.entries(rest)) {
    const kept = differing(value, DEFAULTS[key]);
    if (kept !== undefined && !(Array.isArray(kept) && kept.length === 0) && !(isRecord(kept) && Object.keys(kept).length === 0))
      entry[key] = kept;
  }
  // sse_fallback is on by default exactly when the transport is implied by a url (not written); after url, where it reads.
  const impliedOn = transport === 'streamable-http' && entry.transport === undefined;
  if (transport === 'streamable-http' && (fallback === true) !== impliedOn) entry.sse_fallback = fallback === true;
  return entry;
}

export function serversSection(servers: Readonly<Record<string, ResolvedServerConfig>>): ServersSection {
  return Object.fromEntries(Object.entries(servers).map(([name, config]) => [name, serverEntry(config)]));
}

/**
 * @example
 * serversYaml({ memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } }, ['imported from x.json']);
 * // '# imported from x.json\nservers:\n  memory:\n    command: npx\n    args:\n      - -y\n ...'
 */
export function serversYaml(section: ServersSection, comments: readonly string[] = []): string {
  const header = comments.map((line) => `# ${line}\n`).join('');
  const body = Object.keys(section).length === 0 ? 'servers: {}\n' : stringify({ servers: section }, { lineWidth: 0 });
  return header + body;
}

/** Names of variables and headers that usually hold a secret. */
const SECRET_NAME = /token|secret|passw|api[_-]?key|private[_-]?key|auth|credential|cookie/i;

/**
 * `env` and `headers` entries named like secrets whose values are written out literally: the
 * file is better off with a `${VAR}` reference filled in from the environment when it is loaded.
 */
export function literalSecrets(section: ServersSection): string[] {
  const found: string[] = [];
  for (const [name, entry] of Object.entries(section)) {
    for (const key of ['env', 'headers'] as const) {
      const values = entry[key];
      if (!isRecord(values)) continue;
      for (const [variable, value] of Object.entries(values)) {
        if (typeof value === 'string' && value !== '' && !value.includes('${') && SECRET_NAME.test(variable))
          found.push(`servers.${name}.${key}.${variable}`);
      }
    }
  }
  return found;
}
