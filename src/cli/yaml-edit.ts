/**
 * Edits of a YAML file that keep the person's file: each edit splices only the lines it changes
 * into the text, so comments, key order, quoting and spacing elsewhere survive byte for byte.
 *
 * The `yaml` document API says where every node is (`node.range`); the splice is checked against
 * the same edit made on the parsed data, and when the two disagree (an unusual layout: a flow
 * mapping split over lines, anchors) the edit falls back to the document API's own rendering,
 * which keeps comments and order but may re-space the file. Either way the result means exactly
 * the data edited.
 */

import { isDeepStrictEqual } from 'node:util';
import { type Document, type Node, type Pair, isCollection, isMap, isScalar, isSeq, parseDocument, stringify } from 'yaml';

export type YamlPath = readonly (string | number)[];

/** Set a key (adding it at the end of its mapping, or replacing its value), or delete a key or list item. */
export type YamlEdit =
  { readonly op: 'set'; readonly path: YamlPath; readonly value: unknown } | { readonly op: 'delete'; readonly path: YamlPath };

/**
 * The text with every edit applied in turn.
 *
 * @example
 * applyYamlEdits('servers: # mine\n  a: { command: x }\n', [{ op: 'set', path: ['servers', 'b'], value: { command: 'y' } }]);
 * // 'servers: # mine\n  a: { command: x }\n  b:\n    command: y\n'
 */
export function applyYamlEdits(text: string, edits: readonly YamlEdit[]): string {
  return edits.reduce(applyOne, text);
}

function applyOne(text: string, edit: YamlEdit): string {
  const doc = parseDocument(text);
  const [error] = doc.errors;
  if (error) throw error;
  const expected = editData(doc.toJS() as unknown, edit);
  const spliced = splice(text, doc, edit);
  if (spliced !== undefined) {
    const check = parseDocument(spliced);
    if (check.errors.length === 0 && isDeepStrictEqual(check.toJS(), expected)) return spliced;
  }
  return rendered(doc, edit, expected);
}

/** The edit made on plain data: what the text must mean afterwards. */
function editData(data: unknown, edit: YamlEdit): unknown {
  const root = structuredClone(data ?? {}) as Record<string | number, unknown>;
  let parent: Record<string | number, unknown> = root;
  const keys = edit.path.slice(0, -1);
  for (const key of keys) {
    const next = parent[key];
    if (typeof next !== 'object' || next === null) {
      if (edit.op === 'delete') return root;
      parent[key] = {};
    }
    parent = parent[key] as Record<string | number, unknown>;
  }
  const last = edit.path[edit.path.length - 1] as string | number;
  if (edit.op === 'set') parent[last] = structuredClone(edit.value);
  else if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else Reflect.deleteProperty(parent, last);
  return root;
}

/** The document API's rendering, for layouts the splice does not handle. */
function rendered(doc: Document, edit: YamlEdit, expected: unknown): string {
  if (edit.op === 'delete') doc.deleteIn(edit.path);
  else {
    // setIn needs collections all the way down; a null section (`servers:`) is replaced whole.
    let at = 0;
    while (at < edit.path.length - 1 && isCollection(doc.getIn(edit.path.slice(0, at + 1), true))) at += 1;
    const base = edit.path.slice(0, at + 1);
    doc.setIn(base, doc.createNode(valueAt(expected, base)));
  }
  return doc.toString({ lineWidth: 0 });
}

function valueAt(data: unknown, path: YamlPath): unknown {
  return path.reduce<unknown>((value, key) => (value as Record<string | number, unknown>)[key], data);
}

const lineStart = (text: string, offset: number): number => text.lastIndexOf('\n', offset - 1) + 1;
/** Just past the newline that ends the line holding `offset` (the text's end when there is none). */
function afterLine(text: string, offset: number): number {
  if (offset > 0 && text[offset - 1] === '\n') return offset;
  const end = text.indexOf('\n', offset);
  return end === -1 ? text.length : end + 1;
}
const column = (text: string, offset: number): number => offset - lineStart(text, offset);

function pairOf(map: Node, key: string | number): Pair<Node, Node | null> | undefined {
  if (!isMap(map)) return undefined;
  return (map.items as Pair<Node, Node | null>[]).find((pair) => isScalar(pair.key) && pair.key.value === key);
}

/** Block YAML for `value` at `indent` spaces, each line ending in a newline. */
function block(value: unknown, indent: number, step: number): string {
  const text = stringify(value, { indent: step, lineWidth: 0 });
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `${' '.repeat(indent)}${line}\n`)
    .join('');
}

/** What follows `key:` for a new value: ` scalar`, ` {}` for an empty collection, or a block on the next lines. */
function valueText(value: unknown, indent: number, step: number): string {
  if (typeof value === 'object' && value !== null && Object.keys(value).length > 0)
    return `\n${block(value, indent, step).replace(/\n$/, '')}`;
  return ` ${stringify(value, { lineWidth: 0 }).trimEnd()}`;
}

/** The indentation step the file uses, read from its first nested block mapping (2 when unknown). */
function indentStep(text: string, doc: Document): number {
  const root = doc.contents;
  if (!isMap(root) || root.flow) return 2;
  for (const pair of root.items) {
    const inner = pair.value;
    const first = isMap(inner) && !inner.flow ? inner.items[0] : undefined;
    const key = first?.key as Node | undefined;
    if (key?.range && isScalar(pair.key) && pair.key.range) {
      const step = column(text, key.range[0]) - column(text, pair.key.range[0]);
      if (step > 0) return step;
    }
  }
  return 2;
}

/** The splice for `edit`, or undefined when the layout is one it does not handle. */
function splice(text: string, doc: Document, edit: YamlEdit): string | undefined {
  const step = indentStep(text, doc);
  const parentPath = edit.path.slice(0, -1);
  const key = edit.path[edit.path.length - 1] as string | number;
  const parent = parentPath.length === 0 ? doc.contents : (doc.getIn(parentPath, true) as Node | undefined);
  if (edit.op === 'set') {
    if (parentPath.length === 0 && parent === null) {
      const before = text === '' || text.endsWith('\n') ? text : `${text}\n`;
      return `${before}${key}:${valueText(edit.value, step, step)}\n`;
    }
    if (parent !== undefined && parent !== null && isMap(parent) && !parent.flow) return setInBlockMap(text, parent, key, edit.value, step);
    if (parent === undefined || (isScalar(parent) && parent.value === null)) {
      // The parent is missing or empty: set it whole, one level up.
      if (parentPath.length === 0) return undefined;
      return splice(text, doc, { op: 'set', path: parentPath, value: { [key]: edit.value } });
    }
    if (isMap(parent) && parent.flow && parent.items.length === 0 && parentPath.length > 0) {
      // `actors: {}` grows into a block mapping, as a person would write it.
      const holder = holderPair(doc, parentPath);
      return holder ? setValueOfPair(text, holder, { [key]: edit.value }, step) : undefined;
    }
    if (isCollection(parent) && parent.flow)
      return replaceNode(text, parent, editData(parent.toJSON() as unknown, { op: 'set', path: [key], value: edit.value }));
    return undefined;
  }
  if (parent === null || parent === undefined || !isCollection(parent)) return text;
  if (parent.flow) return replaceNode(text, parent, editData(parent.toJSON() as unknown, { op: 'delete', path: [key] }));
  if (parent.items.length === 1) {
    const holder = parentPath.length === 0 ? undefined : holderPair(doc, parentPath);
    if (!holder) return undefined;
    return setValueOfPair(text, holder, isSeq(parent) ? [] : {}, step);
  }
  const range = isSeq(parent) ? seqItemLines(text, parent.items[Number(key)] as Node | undefined) : pairLines(text, pairOf(parent, key));
  return range === undefined ? undefined : text.slice(0, range[0]) + text.slice(range[1]);
}

function holderPair(doc: Document, path: YamlPath): Pair<Node, Node | null> | undefined {
  const holder = path.length === 1 ? doc.contents : (doc.getIn(path.slice(0, -1), true) as Node | undefined);
  return holder ? pairOf(holder, path[path.length - 1] as string | number) : undefined;
}

function setInBlockMap(
  text: string,
  map: Node & { items: unknown[] },
  key: string | number,
  value: unknown,
  step: number,
): string | undefined {
  const existing = pairOf(map, key);
  if (existing) return setValueOfPair(text, existing, value, step);
  // A pair made by the document API may have a null key.
  const last = map.items[map.items.length - 1] as Pair<Node | null, Node | null> | undefined;
  const firstKey = (map.items[0] as Pair<Node | null, Node | null> | undefined)?.key;
  if (!last?.key?.range || !firstKey?.range) return undefined;
  const indent = column(text, firstKey.range[0]);
  const end = last.value?.range?.[1] ?? last.key.range[1];
  const at = afterLine(text, end);
  const before = text.slice(0, at);
  const glue = before === '' || before.endsWith('\n') ? '' : '\n';
  return `${before}${glue}${block({ [key]: value }, indent, step)}${text.slice(at)}`;
}

/** `key: old` becomes `key: new`, with what stands after the old value on its line (a comment) kept. */
function setValueOfPair(text: string, pair: Pair<Node, Node | null>, value: unknown, step: number): string | undefined {
  const keyRange = pair.key.range;
  if (!keyRange) return undefined;
  const colon = text.indexOf(':', keyRange[1]);
  if (colon === -1) return undefined;
  const indent = column(text, keyRange[0]) + step;
  const old = pair.value;
  const restOfKeyLine = text.slice(colon + 1, afterLine(text, colon + 1)).trim();
  const empty = old === null || (isScalar(old) && old.value === null && (restOfKeyLine === '' || restOfKeyLine.startsWith('#')));
  if (empty) {
    // `servers:` or `servers: # comment`: the value goes after the comment, on the lines below.
    const at = afterLine(text, colon + 1);
    const piece = valueText(value, indent, step);
    if (piece.startsWith('\n')) return `${text.slice(0, at)}${piece.slice(1)}\n${text.slice(at)}`;
    return `${text.slice(0, colon + 1)}${piece}${text.slice(colon + 1)}`;
  }
  if (!old.range) return undefined;
  const end = isCollection(old) && !old.flow ? old.range[1] : old.range[1];
  const tail = text[end - 1] === '\n' ? '\n' : '';
  return `${text.slice(0, colon + 1)}${valueText(value, indent, step)}${tail}${text.slice(end)}`;
}

/** The whole lines of one `key: value` pair of a block mapping, when the key starts its line. */
function pairLines(text: string, pair: Pair<Node, Node | null> | undefined): [number, number] | undefined {
  const keyRange = pair?.key.range;
  if (!pair || !keyRange) return undefined;
  const start = lineStart(text, keyRange[0]);
  if (text.slice(start, keyRange[0]).trim() !== '') return undefined;
  const end = pair.value?.range?.[1] ?? keyRange[1];
  return [start, afterLine(text, end)];
}

/** The whole lines of one `- item` of a block sequence. */
function seqItemLines(text: string, item: Node | undefined): [number, number] | undefined {
  if (!item?.range) return undefined;
  const start = lineStart(text, item.range[0]);
  if (!/^\s*-\s*$/.test(text.slice(start, item.range[0]))) return undefined;
  return [start, afterLine(text, item.range[1])];
}

/** A flow collection (`[a, b]`, `{ a: 1 }`) rewritten in place, in flow style. */
function replaceNode(text: string, node: Node, value: unknown): string | undefined {
  if (!node.range) return undefined;
  const flow = stringify(value, { collectionStyle: 'flow', lineWidth: 0 }).trimEnd();
  return text.slice(0, node.range[0]) + flow + text.slice(node.range[1]);
}
