/**
 * Literal secrets in `env` and `headers` (imported, or given to `agents tool add`) turned into
 * `${VAR}` references, so they never land in agents.yaml: `GITHUB_TOKEN: ghp_…` becomes
 * `GITHUB_TOKEN: ${GITHUB_TOKEN}`, and `Authorization: Bearer lin_api_…` becomes
 * `Authorization: Bearer ${LINEAR_AUTHORIZATION}`. What the person must then set is returned as
 * variable/value pairs, and said as the `export` lines to run.
 */
import { referencedNames } from '../config/env-references.js';
import { isRecord } from '../config/file-keys.js';
import type { ServersSection } from './servers-yaml.js';

/** Names of variables and headers that usually hold a secret. */
const SECRET_NAME = /token|secret|passw|api[_-]?key|private[_-]?key|auth|credential|cookie|session/i;
/** Values that look like a credential whatever they are called: well-known token prefixes. */
const SECRET_VALUE =
  /^(gh[pousr]_|github_pat_|sk-|sk_live_|rk_live_|xox[abpr]-|lin_api_|glpat-|AKIA[0-9A-Z]{12}|AIza|ya29\.|npm_|hf_|pplx-)/;
/** An authorization scheme kept in front of the reference: `Bearer ${TOKEN}`. */
const SCHEME = /^(Bearer|Basic|Token|Bot)\s+/i;

export interface SecretExport {
  readonly variable: string;
  readonly value: string;
}

const RESERVED = Symbol('reserved');

const looksSecret = (name: string, value: string): boolean => SECRET_NAME.test(name) || SECRET_VALUE.test(value.replace(SCHEME, ''));

const variableName = (...words: string[]): string =>
  words
    .join('_')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase()
    .replace(/^(?=\d)/, '_');

/** The variables the `env` and `headers` of `servers` already reference (`${NAME}`, `${NAME:-default}`). */
export function referencedVariables(servers: Readonly<Record<string, unknown>>): Set<string> {
  const names = new Set<string>();
  for (const entry of Object.values(servers)) {
    for (const key of ['env', 'headers'] as const) {
      const values = isRecord(entry) ? entry[key] : undefined;
      if (!isRecord(values)) continue;
      for (const value of Object.values(values)) {
        if (typeof value === 'string') for (const name of referencedNames(value)) names.add(name);
      }
    }
  }
  return names;
}

/**
 * A copy of `section` with each literal secret replaced by a reference, and the exports to run.
 * A variable name already used for another value, or `reserved` (referenced in the file already),
 * gets the server's name in front.
 *
 * @example
 * referencesForSecrets({ gh: { command: 'x', env: { GITHUB_TOKEN: 'ghp_1' } } });
 * // { section: { gh: { command: 'x', env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } } }, exports: [{ variable: 'GITHUB_TOKEN', value: 'ghp_1' }] }
 */
export function referencesForSecrets(
  section: ServersSection,
  reserved: ReadonlySet<string> = new Set(),
): { section: ServersSection; exports: SecretExport[] } {
  const exports: SecretExport[] = [];
  // A reserved name holds a value nobody here knows: it is never shared.
  const taken = new Map<string, string | typeof RESERVED>([...reserved].map((name) => [name, RESERVED]));
  const claim = (preferred: string, fallback: string, value: string): string => {
    for (const name of [preferred, fallback]) {
      const holder = taken.get(name);
      if (holder === undefined) {
        taken.set(name, value);
        exports.push({ variable: name, value });
        return name;
      }
      if (holder === value) return name;
    }
    let n = 2;
    while (taken.has(`${fallback}_${n}`) && taken.get(`${fallback}_${n}`) !== value) n += 1;
    return claim(`${fallback}_${n}`, `${fallback}_${n}`, value);
  };
  const out: ServersSection = {};
  for (const [server, entry] of Object.entries(section)) {
    const copy: Record<string, unknown> = { ...entry };
    for (const key of ['env', 'headers'] as const) {
      const values = entry[key];
      if (!isRecord(values)) continue;
      copy[key] = Object.fromEntries(
        Object.entries(values).map(([name, value]) => {
          if (typeof value !== 'string' || value === '' || value.includes('${') || !looksSecret(name, value)) return [name, value];
          const scheme = key === 'headers' ? (SCHEME.exec(value)?.[0] ?? '') : '';
          const secret = value.slice(scheme.length);
          const variable =
            key === 'env'
              ? claim(variableName(name), variableName(server, name), secret)
              : claim(variableName(server, name), variableName(server, name), secret);
          return [name, `${scheme}\${${variable}}`];
        }),
      );
    }
    out[server] = copy;
  }
  return { section: out, exports };
}

/** `export GITHUB_TOKEN='ghp_…'`, quoted for sh. */
function exportLine({ variable, value }: SecretExport): string {
  return `export ${variable}='${value.replace(/'/g, `'\\''`)}'`;
}

/** The export lines to run, one a variable. */
export const exportLines = (exports: readonly SecretExport[]): string[] => exports.map(exportLine);

/** What the person is told after the write: empty when no literal secret was turned into a reference. */
export function exportNote(lines: readonly string[]): string {
  if (lines.length === 0) return '';
  return `\nliteral secrets became \${VAR} references; set them where the runtime runs (not in agents.yaml):\n${lines.join('\n')}\n`;
}
