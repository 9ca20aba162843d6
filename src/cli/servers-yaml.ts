/**
 * Server configurations written back as the `servers:` section of an agents.yaml: snake_case
 * keys, and only what differs from the defaults (a transport that `command` or `url` implies is
 * left out too), so the section reads like one a person wrote.
 */
import { stringify } from 'yaml';
import { BACKOFF_KEY_MAP, SERVER_TOP_LEVEL_KEY_MAP, isRecord } from '../config/config-keys.js';
import { SERVER_CONFIG_DEFAULTS, type ResolvedServerConfig } from '../config/server-config.js';

export type ServersSection = Record<string, Record<string, unknown>>;

/** One server as its agents.yaml entry (without `name`: the key names it). */
export function serverEntry(config: ResolvedServerConfig): Record<string, unknown> {
  const entry: Record<string, unknown> = {};
  const defaults: Readonly<Record<string, unknown>> = SERVER_CONFIG_DEFAULTS;
  for (const [snake, camel] of Object.entries(SERVER_TOP_LEVEL_KEY_MAP)) {
    if (camel === 'name') continue;
    const value: unknown = config[camel];
    if (camel === 'transport') {
      if (value !== (config.command === undefined ? 'streamable-http' : 'stdio')) entry[snake] = value;
    } else if (camel === 'sseFallback') {
      // On by default exactly when the transport is implied by a url (not written).
      const impliedOn = config.transport === 'streamable-http' && entry.transport === undefined;
      if ((value === true) !== impliedOn && config.transport === 'streamable-http') entry[snake] = value === true;
    } else if (camel === 'backoff') {
      const backoff = Object.fromEntries(
        Object.entries(BACKOFF_KEY_MAP).flatMap(([key, field]) =>
          config.backoff[field] === SERVER_CONFIG_DEFAULTS.backoff[field] ? [] : [[key, config.backoff[field]]],
        ),
      );
      if (Object.keys(backoff).length > 0) entry[snake] = backoff;
    } else if (value === undefined || value === defaults[camel]) {
      continue;
    } else if (Array.isArray(value)) {
      if (value.length > 0) entry[snake] = [...(value as unknown[])];
    } else if (isRecord(value)) {
      if (Object.keys(value).length > 0) entry[snake] = { ...value };
    } else {
      entry[snake] = value;
    }
  }
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
        if (typeof value === 'string' && value !== '' && !value.includes('${') && SECRET_NAME.test(variable)) found.push(`servers.${name}.${key}.${variable}`);
      }
    }
  }
  return found;
}
