/**
 * Where a key path is in the text it came from (`agents.yaml:12:5`), so every configuration problem
 * can name the line to fix. Works for YAML and for JSON (which the YAML parser reads too).
 */

import { type Document, type LineCounter, type Node, type YAMLError, isAlias, isMap, isScalar, isSeq } from 'yaml';
import type { ConfigProblem } from '../errors/index.js';
import type { FoundProblem, PathSegment } from './problem-text.js';

/** A position in a text, both counted from 1, as editors and compilers print them. */
export interface SourcePosition {
  readonly line: number;
  readonly col: number;
}

/** Finds the position of a key path; for a key that is not there, the position of its nearest parent. */
export type Locate = (path: readonly PathSegment[]) => SourcePosition;

/** Where a problem is, for programs: `ConfigError.details.locations` lists one per problem. */
export interface ProblemLocation extends SourcePosition {
  readonly path: string;
  readonly file: string;
}

/** What a text without a file name is called in positions: `<input>:3:5`. */
export const UNNAMED_SOURCE = '<input>';

/**
 * A `Locate` over a parsed document. `lineCounter` must be the one given to `parseDocument` for
 * this text (a LineCounter counts every text it is given, so it cannot be shared).

 */
export function yamlLocator(doc: Document, lineCounter: LineCounter): Locate {
  const at = (offset: number | undefined): SourcePosition => {
    const { line, col } = lineCounter.linePos(offset ?? 0);
    return { line, col };
  };
  return (path) => {
    let node = resolved(doc, doc.contents);
    let offset = node?.range?.[0] ?? 0;
    for (const segment of path) {
      if (isMap(node)) {
        const pair = findPair(node.items, segment);
        if (!pair) break;
        offset = (pair.key as Node | null)?.range?.[0] ?? offset;
        node = resolved(doc, pair.value as Node | null);
      } else if (isSeq(node)) {
        const item = node.items[Number(segment)] as Node | null | undefined;
        if (!/^\d+$/.test(String(segment)) || !item) break;
        offset = item.range?.[0] ?? offset;
        node = resolved(doc, item);
      } else {
        break;
      }
    }
    return at(offset);
  };
}

interface AnyPair {
  readonly key: unknown;
  readonly value: unknown;
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return typeof key === 'string' || typeof key === 'number' ? String(key) : undefined;
}

function findPair(items: readonly AnyPair[], segment: PathSegment): AnyPair | undefined {
  return items.find((item) => keyText(item.key) === String(segment));
}

/** Follows an alias (`*anchor`) to the node it names, so paths through aliases are found. */
function resolved(doc: Document, node: Node | null | undefined): Node | null | undefined {
  return isAlias(node) ? (node.resolve(doc) ?? node) : node;
}

/** The line and column of an offset in `text`. */
export function positionAt(text: string, offset: number): SourcePosition {
  const before = text.slice(0, Math.max(0, offset));
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, col: offset - lineStart + 1 };
}

/** The key path of the innermost key or item whose text contains `offset` (for parser errors). */
export function pathAtOffset(doc: Document, offset: number): PathSegment[] {
  const path: PathSegment[] = [];
  let node: unknown = doc.contents;
  const contains = (candidate: unknown): boolean => {
    const range = (candidate as Node | null)?.range;
    return range !== undefined && range !== null && offset >= range[0] && offset < Math.max(range[2], range[0] + 1);
  };
  for (;;) {
    if (isMap(node)) {
      const pair = (node.items as AnyPair[]).find((item) => contains(item.key) || contains(item.value));
      const key = pair ? keyText(pair.key) : undefined;
      if (!pair || key === undefined) break;
      path.push(key);
      if (!contains(pair.value)) break;
      node = pair.value;
    } else if (isSeq(node)) {
      const index = node.items.findIndex((item) => contains(item));
      if (index === -1) break;
      path.push(index);
      node = node.items[index];
    } else {
      break;
    }
  }
  return path;
}

/** What to do about each kind of YAML syntax error, by the parser's error code. */
const SYNTAX_HINTS: Readonly<Record<string, string>> = {
  TAB_AS_INDENT: 'indent with spaces: YAML does not allow tabs for indentation',
  DUPLICATE_KEY: 'a key may appear once in a mapping: merge the two entries, or rename one',
  MULTIPLE_DOCS: 'keep one document in the file: remove the "---" line and what follows it, or move that part to its own file',
  BAD_INDENT: 'check the indentation here: keys of one mapping line up, and nested keys are indented further',
  MISSING_CHAR: 'a closing quote or bracket is missing',
  BLOCK_AS_IMPLICIT_KEY: 'put a space after the colon ("key: value"), or quote the value',
  MULTILINE_IMPLICIT_KEY: 'put a space after the colon ("key: value"), or quote the value',
  BAD_DQ_ESCAPE: 'in double quotes a backslash starts an escape: write \\\\ for a backslash, or use single quotes',
  BAD_ALIAS: 'an alias (*name) must name an anchor (&name) defined earlier in the file',
};

/**
 * The parser's errors as problems: `file:line:col: <the parser's words>`, with a hint. A duplicate
 * key is reported at its own key path; other errors at the innermost key around them.
 */
export function yamlSyntaxProblems(errors: readonly YAMLError[], doc: Document, lineCounter: LineCounter, file: string): ConfigProblem[] {
  return errors.map((error) => {
    const offset = error.pos[0];
    const { line, col } = lineCounter.linePos(offset);
    const words = error.message.replace(/ at line \d+, column \d+:[\s\S]*$/, '').trim();
    const problem = error.code === 'DUPLICATE_KEY' ? 'is written twice (YAML map keys must be unique)' : `is not valid YAML: ${words}`;
    const hint = SYNTAX_HINTS[error.code] ?? 'fix the YAML syntax here (often a missing space after a colon, or an unclosed quote or bracket)';
    return { path: renderKeyPath(pathAtOffset(doc, offset)), problem: `${file}:${line}:${col}: ${problem}`, hint };
  });
}

const PLAIN_SEGMENT = /^[A-Za-z0-9_$/-]+$/;

/**
 * `skills.triage.mcp_servers.1.include`, `tools.github/create_issue.overrides`,
 * `servers["fs.home"].command`: plain keys joined by dots, anything else in brackets.
 */
export function renderKeyPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    const text = String(segment);
    if (PLAIN_SEGMENT.test(text)) out += out === '' ? text : `.${text}`;
    else out += `[${JSON.stringify(text)}]`;
  }
  return out;
}

/**
 * Renders found problems for a `ConfigError`: the path as text and, when `locate` is given, the
 * problem prefixed with `file:line:col:`, sorted by position. Repeated problems are kept once.
 */
export function placeProblems(
  found: readonly FoundProblem[],
  source?: { readonly file: string; readonly locate: Locate },
): { problems: ConfigProblem[]; locations: ProblemLocation[] } {
  const seen = new Set<string>();
  const placed: { problem: ConfigProblem; location?: ProblemLocation }[] = [];
  for (const { path, problem, hint } of found) {
    const rendered = renderKeyPath(path);
    const key = `${rendered}\u0000${problem}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const base = hint === undefined ? {} : { hint };
    if (!source) {
      placed.push({ problem: { path: rendered, problem, ...base } });
      continue;
    }
    const { line, col } = source.locate(path);
    placed.push({
      problem: { path: rendered, problem: `${source.file}:${line}:${col}: ${problem}`, ...base },
      location: { path: rendered, file: source.file, line, col },
    });
  }
  if (source) placed.sort((a, b) => (a.location?.line ?? 0) - (b.location?.line ?? 0) || (a.location?.col ?? 0) - (b.location?.col ?? 0));
  return {
    problems: placed.map((entry) => entry.problem),
    locations: placed.flatMap((entry) => (entry.location ? [entry.location] : [])),
  };
}
