/**
 * `${NAME}` references in configuration values, filled in from the environment when a file is
 * loaded, so secrets stay out of the file: `env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" }`.
 *
 * - `${NAME}` is the value of NAME; a NAME that is not set is a problem (an empty value is a value).
 * - `${NAME:-default}` is the value of NAME, or `default` when NAME is unset or empty (as in sh).
 * - `$${` is a literal `${`: `"$${HOME}"` stays `"${HOME}"`.
 * - The runtime's own placeholders, `${SANDBOX_ROOT}` and `${TENANT}`, are left as they are: a
 *   server actor fills them in when it starts the server.
 * - `$NAME` without braces is plain text. Only string values are read, never keys.
 */

import { isRecord } from './file-keys.js';
import type { FoundProblem, PathSegment } from './found-problem.js';

/** Placeholders the runtime fills in itself when a server starts; never read from the environment. */
export const RUNTIME_PLACEHOLDERS = ['SANDBOX_ROOT', 'TENANT'] as const;
export type RuntimePlaceholder = (typeof RUNTIME_PLACEHOLDERS)[number];

/** The environment references are read from: `process.env`, or a plain object in tests. */
export type EnvironmentVariables = Readonly<Record<string, string | undefined>>;

/** One mistake in one string: what is wrong, what to write instead, and in `unset` the variable when it is only not set. */
export type EnvReferenceProblem = Omit<FoundProblem, 'path' | 'hint'> & { readonly hint: string };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RUNTIME = new Set<string>(RUNTIME_PLACEHOLDERS);
/** `$${` (a literal `${`), `${…}`, or a `${` never closed (to the end of the text). */
const REFERENCE = /\$\$\{|\$\{([^}]*)\}|\$\{[\s\S]*$/g;

/**
 * Fills in the `${NAME}` references of one string. Returns the expanded text and every mistake
 * found (unset variable, unterminated or malformed reference; an unset one names it in `unset`);
 * the text keeps a mistaken reference as it was written.
 *
 * @example
 * expandEnvReferences('Bearer ${TOKEN}', { TOKEN: 'abc' }); // { value: 'Bearer abc', problems: [] }
 */
export function expandEnvReferences(text: string, env: EnvironmentVariables): { value: string; problems: EnvReferenceProblem[] } {
  const problems: EnvReferenceProblem[] = [];
  const value = text.replace(REFERENCE, (written: string, inner: string | undefined) => {
    if (written === '$${') return '${';
    const expanded = expandOne(inner, written, env);
    if (typeof expanded === 'string') return expanded;
    problems.push(expanded);
    return written;
  });
  return { value, problems };
}

/** The value of one `${...}` (`inner`: without its braces; undefined when never closed), or what is wrong with it. */
function expandOne(inner: string | undefined, written: string, env: EnvironmentVariables): string | EnvReferenceProblem {
  if (inner === undefined) {
    const problem = `has an unterminated reference ${JSON.stringify(written.slice(0, 30))} (no closing })`;
    return { problem, hint: 'close it with }, or write $${ for a literal ${' };
  }
  const split = inner.indexOf(':-');
  const name = split === -1 ? inner : inner.slice(0, split);
  const fallback = split === -1 ? undefined : inner.slice(split + 2);
  if (!NAME.test(name)) return { problem: `has a malformed reference ${JSON.stringify(written)}`, hint: malformedHint(inner) };
  if (RUNTIME.has(name)) {
    if (fallback === undefined) return written;
    const problem = `gives a default to \${${name}}, which the runtime fills in when the server starts`;
    return { problem, hint: `write \${${name}} without a default` };
  }
  if (fallback?.includes('${')) {
    const hint = 'nested references are not supported: write the default as plain text';
    return { problem: `nests a reference inside the default of ${JSON.stringify(written)}`, hint };
  }
  const value = env[name];
  if (fallback !== undefined) return value === undefined || value === '' ? fallback : value;
  const hint = `export it, or remove the reference (\${${name}:-text} gives a default)`;
  return value ?? { problem: `${name} is not set in the environment`, hint, unset: name };
}

function malformedHint(inner: string): string {
  if (inner.trim() === '') return 'write a variable name inside the braces, such as ${GITHUB_TOKEN}, or $${} for a literal ${}';
  const shellDefault = /^([A-Za-z_][A-Za-z0-9_]*)(:?[-=?+])(.*)$/.exec(inner);
  if (shellDefault?.[1] !== undefined) return `only \${NAME:-default} is supported: write \${${shellDefault[1]}:-${shellDefault[3] ?? ''}}`;
  if (inner.startsWith('env:')) return `write \${${inner.slice(4)}} (VS Code's \${env:NAME} is spelled \${NAME} here)`;
  return 'a name is letters, digits and _, not starting with a digit; write $${ for a literal ${';
}

/** The variables `text` references (`${NAME}`, `${NAME:-default}`): not an escape (`$${`), not a malformed one, not the runtime's own. */
export function referencedNames(text: string): string[] {
  const names: string[] = [];
  for (const [written, inner] of text.matchAll(REFERENCE)) {
    const name = written === '$${' || inner === undefined ? '' : (inner.split(':-')[0] ?? '');
    if (NAME.test(name) && !RUNTIME.has(name)) names.push(name);
  }
  return names;
}

/**
 * Fills in the references of every string value of `data` (objects and lists are walked, keys are
 * not read). Returns a copy; each problem's path is `path` followed by the keys down to the string.
 *
 * @example
 * resolveEnvReferences({ env: { TOKEN: '${TOKEN}' } }, { TOKEN: 'abc' }).value; // { env: { TOKEN: 'abc' } }
 */
export function resolveEnvReferences(
  data: unknown,
  env: EnvironmentVariables,
  path: readonly PathSegment[] = [],
): { value: unknown; problems: FoundProblem[] } {
  const problems: FoundProblem[] = [];
  const walk = (value: unknown, at: readonly PathSegment[]): unknown => {
    if (typeof value === 'string') {
      if (!value.includes('$')) return value;
      const expanded = expandEnvReferences(value, env);
      for (const problem of expanded.problems) problems.push({ path: at, ...problem });
      return expanded.value;
    }
    if (Array.isArray(value)) return value.map((item, index) => walk(item, [...at, index]));
    // Object.fromEntries defines own properties, so a `__proto__` key stays data for validation to report.
    return isRecord(value) ? Object.fromEntries(Object.keys(value).map((key) => [key, walk(value[key], [...at, key])])) : value;
  };
  return { value: walk(data, path), problems };
}
