/**
 * "Did you mean …?" for the command line: the nearest command or flag to a mistyped one.
 */
import { closest } from '../config/suggest.js';

/**
 * The candidate a person most likely meant: the nearest within a couple of edits (as for
 * configuration keys), else the only candidate that `word` starts (`val` → `validate`).
 *
 * @example
 * suggest('valdate', ['validate', 'import']); // 'validate'
 */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  if (word === '') return undefined;
  const near = closest(word, candidates);
  if (near !== undefined) return near;
  const lower = word.toLowerCase();
  const prefixed = candidates.filter((candidate) => candidate.toLowerCase().startsWith(lower));
  return word.length >= 2 && prefixed.length === 1 ? prefixed[0] : undefined;
}
