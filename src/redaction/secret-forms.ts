/**
 * The forms a secret takes on its way out of a process, so that the redactor can find it in each:
 * the common ways a program or a hostile server re-encodes a string it was handed.
 *
 * - `folded` forms are matched without regard to case: the secret itself (an upper- or lower-cased
 *   echo too), its URL encodings (component, form, every byte, twice), and its JSON string escapes
 *   (once and twice; with `\uXXXX` for non-ASCII and `\/`, as Python and PHP write them).
 * - `exact` forms are base64 (standard and url-safe), matched as written: the whole secret's
 *   encoding, and the "aligned core" at each of the three byte alignments — the characters that
 *   encode only the secret's bytes wherever the secret sits inside a longer base64 text (`Basic`
 *   credentials, a JWT, a blob). At most two bytes at either end of the secret stay outside a core.
 *
 * Lines of multi-line values are secrets of their own (see `secretLines`).
 */

/** A base64 core shorter than this is not looked for: it would match ordinary base64 text. */
export const MIN_BASE64_CORE = 8;

/** A line of a multi-line secret shorter than this (after trimming) is not a secret of its own. */
export const MIN_SECRET_LINE_LENGTH = 8;

export interface SecretForms {
  /** Matched case-insensitively. */
  readonly folded: readonly string[];
  /** Matched exactly (base64 is case-sensitive). */
  readonly exact: readonly string[];
}

/** @example secretForms('tok/1').folded.includes('tok%2F1'); // true */
export function secretForms(secret: string): SecretForms {
  const folded = new Set<string>([secret, secret.toLowerCase(), secret.toUpperCase()]);
  for (const json of [jsonEscaped(secret), asciiJsonEscaped(secret)]) {
    folded.add(json);
    folded.add(jsonEscaped(json));
    folded.add(asciiJsonEscaped(json));
  }
  const component = uriComponent(secret);
  if (component !== undefined) {
    folded.add(component);
    folded.add(encodeURIComponent(component));
  }
  folded.add(new URLSearchParams({ v: secret }).toString().slice(2));
  folded.add(everyBytePercent(secret));
  const bytes = Buffer.from(secret, 'utf8');
  const exact = new Set<string>();
  const whole = bytes.toString('base64');
  if (whole.length >= 6) {
    exact.add(whole);
    exact.add(whole.replace(/=+$/, ''));
  }
  for (let skip = 0; skip < 3; skip += 1) {
    const aligned = bytes.subarray(skip);
    const core = aligned.subarray(0, aligned.length - (aligned.length % 3)).toString('base64');
    if (core.length >= MIN_BASE64_CORE) exact.add(core);
  }
  for (const form of [...exact]) exact.add(form.replace(/\+/g, '-').replace(/\//g, '_'));
  folded.delete('');
  return { folded: [...folded], exact: [...exact].filter((form) => !folded.has(form)) };
}

/**
 * The lines of a multi-line value worth hiding on their own (each line of a PEM key shows up alone
 * in a stderr tail): trimmed, at least `MIN_SECRET_LINE_LENGTH` long, armor lines left out.
 */
export function secretLines(value: string): string[] {
  if (!/[\r\n]/.test(value)) return [];
  return value
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line.length >= MIN_SECRET_LINE_LENGTH && !/^-{3,}\s*(?:BEGIN|END)\b.*-{3,}$/.test(line));
}

function jsonEscaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** JSON as an ASCII-only encoder writes it: `\uXXXX` for every non-ASCII unit, `\/` for a slash. */
function asciiJsonEscaped(text: string): string {
  return jsonEscaped(text)
    .replace(/[^\x20-\x7e]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/\//g, '\\/');
}

/** `encodeURIComponent`, or undefined for text it refuses (a lone surrogate). */
function uriComponent(text: string): string | undefined {
  try {
    return encodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function everyBytePercent(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
}
