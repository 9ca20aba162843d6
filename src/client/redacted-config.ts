/**
 * The copy of a server's configuration that may be shown: header and env values replaced, names
 * kept. The server machine's context (and so every snapshot, status and inspection event) holds
 * this copy; only the connect actor holds the real one.
 */
import type { ResolvedServerConfig } from '../config/server-config.js';

export const REDACTED = '[redacted]';

function redactValues(record: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  return Object.freeze(Object.fromEntries(Object.keys(record).map((key) => [key, REDACTED])));
}

export function redactedConfig(config: ResolvedServerConfig): ResolvedServerConfig {
  if (Object.keys(config.headers).length === 0 && Object.keys(config.env).length === 0) return config;
  return Object.freeze({ ...config, headers: redactValues(config.headers), env: redactValues(config.env) });
}
