/**
 * The words that name-based capability inference looks for, in one place so the README, the
 * inference and the tests all read the same lists.
 *
 * Matching is on whole word tokens (see `tokenize`), never on substrings: `reset` is a write word
 * in its own right, not because it contains `set`, and `getaway` is not `get`.
 */

/** Words that mark a tool as read-only when no write word is present. */
export const READ_WORDS = [
  'read',
  'get',
  'list',
  'search',
  'find',
  'fetch',
  'query',
  'describe',
  'show',
  'view',
  'count',
  'inspect',
  'stat',
] as const;

/** Words that mark a tool as one that writes. They win over read words in the same name. */
export const WRITE_WORDS = [
  'write',
  'create',
  'update',
  'delete',
  'set',
  'edit',
  'move',
  'rename',
  'remove',
  'add',
  'insert',
  'put',
  'patch',
  'send',
  'push',
  'append',
  'replace',
  'toggle',
  'reset',
  'clear',
  'drop',
  'exec',
  'run',
] as const;

export type ReadWord = (typeof READ_WORDS)[number];
export type WriteWord = (typeof WRITE_WORDS)[number];

const readWords: ReadonlySet<string> = new Set(READ_WORDS);
const writeWords: ReadonlySet<string> = new Set(WRITE_WORDS);

/** True when `token` (already lower case) is one of `READ_WORDS`. */
export function isReadWord(token: string): token is ReadWord {
  return readWords.has(token);
}

/** True when `token` (already lower case) is one of `WRITE_WORDS`. */
export function isWriteWord(token: string): token is WriteWord {
  return writeWords.has(token);
}
