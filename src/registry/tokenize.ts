/**
 * Splits a tool name into lower-case word tokens, the unit that capability inference matches on.
 */

// A run of capitals not followed by a lower-case letter is an acronym (`HTTP` in `getHTTPStatus`);
// otherwise a word is an optional capital followed by lower-case letters. Everything that is not a
// letter (`_`, `-`, `.`, `/`, spaces, digits) is skipped, so it separates words.
const WORD = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lo}+/gu;

/**
 * The words of a tool name, lower-cased, in order. Splits snake_case, kebab-case, dotted and
 * slashed names, camelCase and PascalCase (acronyms included); digits separate words.
 *
 * @example
 * tokenize('getHTTPStatus'); // ['get', 'http', 'status']
 * tokenize('fs.read_file');  // ['fs', 'read', 'file']
 */
export function tokenize(name: string): string[] {
  return Array.from(name.matchAll(WORD), (match) => match[0].toLowerCase());
}
