/** Where a key path is in its text (`agents.yaml:12:5`), through the `yaml` library's document positions; JSON too. */

import type { Document, DocumentOptions, Node, ParseOptions, SchemaOptions } from 'yaml';
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import { type ConfigProblem, ConfigError } from '../errors/index.js';
import type { FoundProblem, PathSegment } from './found-problem.js';
import { concealValues, cutAtSecret, hasUserInfo, secretDepth } from './secret-paths.js';

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

/** A text parsed by the `yaml` library (JSON too): its document, and what finds a key path in it. */
export type Source = ReturnType<typeof parseSource>;

/** Parses `text` (named `file`, else `<input>`; its byte order mark dropped), keeping the positions of its keys. */
export function parseSource(text: string, file = UNNAMED_SOURCE, options: ParseOptions & DocumentOptions & SchemaOptions = {}) {
  const lineCounter = new LineCounter();
  const bare = text.replace(/^\uFEFF/, '');
  const doc = parseDocument(bare, { ...options, lineCounter, keepSourceTokens: true });
  return { file, text: bare, doc: doc as Document, lineCounter, locate: yamlLocator(doc, lineCounter) };
}

type AnyPair = { readonly key: unknown; readonly value: unknown };
const keyText = (key: unknown): string | undefined =>
  isScalar(key) ? String(key.value) : typeof key === 'string' || typeof key === 'number' ? String(key) : undefined;
/** What is under a node: a mapping's pairs by key, a sequence's items by index (an item is its own key). */
function entriesOf(node: unknown): { segment: PathSegment; key: unknown; value: unknown }[] {
  if (isSeq(node)) return node.items.map((item, index) => ({ segment: index, key: item, value: item }));
  const pairs = isMap(node) ? (node.items as AnyPair[]) : [];
  return pairs.flatMap(({ key, value }) => (keyText(key) === undefined ? [] : [{ segment: keyText(key) as string, key, value }]));
}

/** A `Locate` over a document parsed with `lineCounter`; paths through aliases (`*anchor`) are followed. */
export function yamlLocator(doc: Document, lineCounter: LineCounter): Locate {
  const follow = (node: unknown) => (isAlias(node) ? (node.resolve(doc) ?? node) : node) as Node | null | undefined;
  return (path) => {
    let node = follow(doc.contents);
    let offset = node?.range?.[0] ?? 0;
    for (const segment of path) {
      const at = entriesOf(node).find((entry) => String(entry.segment) === String(segment));
      if (!at) break;
      offset = (at.key as Node | null)?.range?.[0] ?? offset;
      node = follow(at.value);
    }
    return lineCounter.linePos(offset);
  };
}

/** The key path of the innermost key or item whose text contains `offset` (for parser errors). */
function pathAtOffset(doc: Document, offset: number): PathSegment[] {
  const path: PathSegment[] = [];
  const contains = (candidate: unknown): boolean => {
    const range = (candidate as Node | null)?.range;
    return !!range && offset >= range[0] && offset < Math.max(range[2], range[0] + 1);
  };
  for (let node: unknown = doc.contents; ;) {
    const entry = entriesOf(node).find(({ key, value }) => contains(key) || contains(value));
    if (!entry) break;
    path.push(entry.segment);
    if (!contains(entry.value)) break;
    node = entry.value;
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

/** The parser's errors as problems, `file:line:col: <the parser's words>` with a hint, at the innermost key around them. */
export function yamlSyntaxProblems({ doc, lineCounter, file }: Source): ConfigProblem[] {
  return doc.errors.map((error) => {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    const words = error.message.replace(/ at line \d+, column \d+:[\s\S]*$/, '').trim();
    const problem = error.code === 'DUPLICATE_KEY' ? 'is written twice (YAML map keys must be unique)' : `is not valid YAML: ${words}`;
    const hint =
      SYNTAX_HINTS[error.code] ?? 'fix the YAML syntax here (often a missing space after a colon, or an unclosed quote or bracket)';
    // Under a secret key, what the broken line made of its value is not part of the path shown.
    return { path: renderKeyPath(cutAtSecret(pathAtOffset(doc, error.pos[0]))), problem: `${file}:${line}:${col}: ${problem}`, hint };
  });
}

/** `skills.triage.mcp_servers.1`, `tools.github/create_issue`, `servers["fs.home"]`: plain keys joined by dots, others in brackets. */
export function renderKeyPath(path: readonly PathSegment[]): string {
  return path
    .map((segment, index) =>
      /^[A-Za-z0-9_$/-]+$/.test(String(segment)) ? `${index === 0 ? '' : '.'}${segment}` : `[${JSON.stringify(String(segment))}]`,
    )
    .join('');
}

/**
 * Renders found problems for a `ConfigError`: the path as text and, when `source` is given, the
 * problem prefixed with `file:line:col:`, sorted by position. Repeated problems are kept once.
 */
export function placeProblems(
  found: readonly FoundProblem[],
  source?: { readonly file: string; readonly locate: Locate; readonly doc?: Document },
): { problems: ConfigProblem[]; locations: ProblemLocation[] } {
  const seen = new Set<string>();
  const placed = found
    .map((one) => concealed(one, source?.doc))
    .flatMap(({ path, problem, hint }) => {
      const rendered = renderKeyPath(path);
      if (seen.has(`${rendered}\u0000${problem}`)) return [];
      seen.add(`${rendered}\u0000${problem}`);
      const base = hint === undefined ? {} : { hint };
      if (!source) return [{ problem: { path: rendered, problem, ...base } }];
      const { line, col } = source.locate(path);
      return [
        {
          problem: { path: rendered, problem: `${source.file}:${line}:${col}: ${problem}`, ...base },
          location: { path: rendered, file: source.file, line, col },
        },
      ];
    }) as { problem: ConfigProblem; location?: ProblemLocation }[];
  placed.sort((a, b) => (a.location?.line ?? 0) - (b.location?.line ?? 0) || (a.location?.col ?? 0) - (b.location?.col ?? 0));
  return { problems: placed.map((entry) => entry.problem), locations: placed.flatMap((entry) => (entry.location ? [entry.location] : [])) };
}

/**
 * A problem that quotes no secret: where its value is secret (see `secret-paths.ts`) or came from a
 * `${VAR}` expansion (its text in `doc` holds `${`), the value is replaced in the problem and hint.
 */
function concealed(found: FoundProblem, doc: Document | undefined): FoundProblem {
  const shown = found.shown ?? [];
  if (shown.length === 0) return found;
  const secret = secretDepth(found.path) !== undefined || hasUserInfo(shown) || expanded(doc, found.path);
  if (!secret) return found;
  const problem = concealValues(found.problem, shown);
  const hint = found.hint === undefined ? undefined : concealValues(found.hint, shown);
  return { ...found, problem, ...(hint === undefined ? {} : { hint }) };
}

/** Whether the text written at `path` (or inside it) holds a `${VAR}` reference. */
function expanded(doc: Document | undefined, path: readonly PathSegment[]): boolean {
  if (doc === undefined) return false;
  const node: unknown = doc.getIn(path, true);
  const texts: string[] = [];
  const visit = (inner: unknown, depth: number): void => {
    if (depth > 20) return;
    if (isScalar(inner)) texts.push(String(inner.value));
    else if (isMap(inner) || isSeq(inner))
      for (const item of inner.items as unknown[])
        visit(isScalar(item) || isMap(item) || isSeq(item) ? item : (item as AnyPair).value, depth + 1);
  };
  visit(node, 0);
  return texts.some((text) => text.includes('${'));
}

/** Throws the `ConfigError` of `found`, placed in `source` when there is one. */
export function throwProblems(found: readonly FoundProblem[], subject: string, source?: Pick<Source, 'file' | 'locate' | 'doc'>): never {
  const { problems, locations } = placeProblems(found, source);
  throw new ConfigError(problems, { subject, details: { ...(source ? { file: source.file } : {}), locations } });
}
