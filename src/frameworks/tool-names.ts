/**
 * Tool names as model APIs take them. An actor's tools are named `<server>/<tool>`; the OpenAI and
 * Anthropic APIs (and the frameworks in front of them) refuse any function name outside
 * `^[a-zA-Z0-9_-]{1,64}$`. One pure mapping, shared by every framework bridge:
 *
 * - a *plain* name — `/`-separated segments of letters, digits, `-` and single `_` between them —
 *   becomes its segments joined by `__` (`files/read_file` → `files__read_file`), when that fits
 *   in 64 characters. Such a name never holds `___` and never starts or ends with `_`, so it is
 *   read back by splitting on `__`;
 * - any other name (other characters, `__`, a leading or trailing `_`, too long) becomes a readable
 *   prefix, `___` and ten hex digits of the name's SHA-256 (`a.b/c` → `a_b__c___3f1c…`). The `___`
 *   keeps these apart from plain names.
 *
 * A model name depends only on the actor's name, so a tool keeps its model name while others come
 * and go; only two hashed names that would collide (a 40-bit hash collision) are told apart by
 * `mapToolNames`, deterministically, whatever order the names come in.
 */
import { createHash } from 'node:crypto';

/** What model APIs accept as a function name. */
export const MODEL_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_LENGTH = 64;
const HASH_LENGTH = 10;
const HASH_MARK = '___';
const PLAIN_SEGMENT = '[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*';
const PLAIN = new RegExp(`^${PLAIN_SEGMENT}(?:/${PLAIN_SEGMENT})*$`);

/** The model's name for one actor tool name, on its own (see `mapToolNames` for a set). */
export function modelToolName(actorName: string): string {
  if (PLAIN.test(actorName)) {
    const joined = actorName.replaceAll('/', '__');
    if (joined.length <= MAX_LENGTH) return joined;
  }
  return hashedName(actorName, 0);
}

function hashedName(actorName: string, salt: number): string {
  const hash = createHash('sha256')
    .update(salt === 0 ? actorName : `${actorName}\u0000${salt}`)
    .digest('hex')
    .slice(0, HASH_LENGTH);
  const prefix = actorName
    .replaceAll('/', '__')
    .replace(/[^a-zA-Z0-9_-]/g, '_')
    .slice(0, MAX_LENGTH - HASH_MARK.length - HASH_LENGTH);
  return `${prefix}${HASH_MARK}${hash}`;
}

/** Both directions between an actor's tool names and the names a model sees. */
export interface ToolNameMap {
  /** The model's name for an actor tool, or undefined for a name not in the set. */
  modelName(actorName: string): string | undefined;
  /** The actor's tool a model name stands for, or undefined for a name not in the set. */
  actorName(modelName: string): string | undefined;
  /** Every pair, `[actorName, modelName]`, in the actor names' order. */
  readonly entries: readonly (readonly [actorName: string, modelName: string])[];
}

/**
 * Maps a set of actor tool names to model names: each matches `MODEL_TOOL_NAME`, no two are the
 * same, and `actorName(modelName(n)) === n` for every name of the set.
 *
 * @example
 * const names = mapToolNames(actor.tools().map((tool) => tool.name));
 * names.modelName('files/read_file'); // 'files__read_file'
 * names.actorName('files__read_file'); // 'files/read_file'
 */
export function mapToolNames(actorNames: Iterable<string>): ToolNameMap {
  // Sorted, so that the rare salted name does not depend on the order the names came in.
  const sorted = [...new Set(actorNames)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const toModel = new Map<string, string>();
  const toActor = new Map<string, string>();
  for (const name of sorted) {
    let candidate = modelToolName(name);
    for (let salt = 1; toActor.has(candidate); salt++) candidate = hashedName(name, salt);
    toModel.set(name, candidate);
    toActor.set(candidate, name);
  }
  const entries = Object.freeze([...toModel.entries()].map((pair) => Object.freeze(pair)));
  return Object.freeze({
    modelName: (actorName: string) => toModel.get(actorName),
    actorName: (modelName: string) => toActor.get(modelName),
    entries,
  });
}
