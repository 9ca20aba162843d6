/**
 * Which places of a configuration hold secrets, so that a problem found there never quotes its
 * value: every entry under `headers` and `env`, a key named like a credential (`Authorization`,
 * `api_key`, `token`, `client_secret`, `password`, ...), and a `url` with a password in it. A
 * value that came from a `${VAR}` expansion is secret wherever it is (told by its source text).
 */
import type { PathSegment } from './found-problem.js';
import { REDACTED } from '../redaction/redactor.js';

/** The free-form maps whose every value is secret. */
const SECRET_MAPS = new Set(['headers', 'env']);
/** Words of a key name that make its value a credential (`X-Api-Key`, `clientSecret`, `GITHUB_TOKEN`). */
const SECRET_WORDS =
  /^(?:authorization|auth|token|tokens|secret|secrets|password|passwd|pass|pwd|key|apikey|credential|credentials|cookie|session|bearer|private)$/;

const wordsOf = (key: string): string[] =>
  key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** Keys of ours whose words sound like a credential but whose value is a name. */
const NAMES = new Set(['tenant_key', 'tenantKey']);

/** Whether `key` (a header, a variable, a key of ours) names a credential. */
export function isSecretKey(key: PathSegment): boolean {
  return typeof key === 'string' && !NAMES.has(key) && wordsOf(key).some((word) => SECRET_WORDS.test(word));
}

/** How many segments of `path` lead to the first secret value in it; undefined when none does. */
export function secretDepth(path: readonly PathSegment[]): number | undefined {
  for (const [i, segment] of path.entries()) {
    if (typeof segment === 'string' && SECRET_MAPS.has(segment) && i + 1 < path.length) return i + 2;
    if (isSecretKey(segment) && i > 0) return i + 1;
  }
  return undefined;
}

/** `path` cut after its first secret key: what a broken YAML line makes of a value (`Authorization["Bearer …"]`) is not shown. */
export function cutAtSecret(path: readonly PathSegment[]): readonly PathSegment[] {
  const depth = secretDepth(path);
  return depth === undefined ? path : path.slice(0, depth);
}

/** A url with a user or a password in it. */
export function hasUserInfo(values: readonly string[]): boolean {
  return values.some((value) => /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value));
}

/**
 * `text` with each of `values` (and the first 57 characters of a long one, as `show` cuts it)
 * replaced by `[redacted]`; a value shorter than 4 characters only where it stands alone.
 */
export function concealValues(text: string, values: readonly string[]): string {
  const forms = [...new Set(values.flatMap((value) => (value.length > 60 ? [value, value.slice(0, 57)] : [value])))].filter(
    (value) => value !== '',
  );
  forms.sort((a, b) => b.length - a.length);
  let out = text;
  for (const form of forms) {
    const escaped = form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pattern = form.length < 4 ? new RegExp(`(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])`, 'g') : new RegExp(escaped, 'g');
    out = out.replace(pattern, REDACTED);
  }
  return out;
}
