/**
 * Finds many literal strings in a text at once, some of them without regard to case: the matcher
 * behind the redactor. A regular expression of hundreds of secrets times a dozen encodings each
 * falls back to V8's bytecode interpreter and tries every alternative at every position (a PEM
 * key's forms took a second per MiB of base64); this one rolls a hash of the last four case-folded
 * units over the text, looks it up in a bitmap, and compares whole strings only where four units
 * agree — a few nanoseconds a unit, whatever the number of secrets.
 *
 * At one position the longest string wins, and matches do not overlap (leftmost, then longest), so
 * a secret that contains another is replaced whole.
 */

/** Every string is at least this long (the redactor's shortest embedded secret). */
export const WINDOW = 4;

/** The bitmap has about 16 bits a string (a few percent of positions then look further), 4 KiB at least, 128 KiB at most. */
const bitmapBits = (strings: number): number => Math.min(1 << 20, Math.max(1 << 15, 2 ** Math.ceil(Math.log2(strings * 16))));

interface Candidate {
  /** The string, case-folded unit by unit when `folded`. */
  readonly text: string;
  readonly folded: boolean;
}

/** One unit in lower case where that is one unit too (`İ` stays as it is); built on first use. */
let foldTable: Uint16Array | undefined;
function folds(): Uint16Array {
  if (foldTable) return foldTable;
  const table = new Uint16Array(0x10000);
  for (let unit = 0; unit < 0x10000; unit += 1) {
    const lower = String.fromCharCode(unit).toLowerCase();
    table[unit] = lower.length === 1 ? lower.charCodeAt(0) : unit;
  }
  foldTable = table;
  return table;
}

function foldText(text: string, table: Uint16Array): string {
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    out += String.fromCharCode(table[unit] ?? unit);
  }
  return out;
}

/**
 * The hash of the last four units: each unit shifted in by a quarter of the mask's width, so the
 * unit four places back has been shifted out. The scan rolls it; `add` computes it the same way.
 */
const roll = (hash: number, unit: number, shift: number, mask: number): number => ((hash << shift) ^ unit) & mask;

export class LiteralMatcher {
  readonly #fold = folds();
  readonly #bitmap: Uint32Array;
  readonly #mask: number;
  readonly #shift: number;
  /** By the hash of their first four folded units, longest first. */
  readonly #candidates = new Map<number, Candidate[]>();
  readonly size: number;

  /**
   * `folded` strings match in any case, `exact` ones as written; strings shorter than `WINDOW` are
   * ignored.
   *
   * @example
   * const matcher = new LiteralMatcher({ folded: ['tok-1'], exact: ['dG9r'] });
   * matcher.replace('TOK-1 dG9r DG9R', '*'); // '* * DG9R'
   */
  constructor(literals: { readonly folded: Iterable<string>; readonly exact: Iterable<string> }) {
    const all = { folded: [...literals.folded], exact: [...literals.exact] };
    const bits = bitmapBits(all.folded.length + all.exact.length);
    this.#bitmap = new Uint32Array(bits / 32);
    this.#mask = bits - 1;
    this.#shift = Math.ceil(Math.log2(bits) / WINDOW);
    const seen = new Set<string>();
    const add = (text: string, folded: boolean): void => {
      if (text.length < WINDOW) return;
      const stored = folded ? foldText(text, this.#fold) : text;
      const key = `${folded ? 'i' : 's'}${stored}`;
      if (seen.has(key)) return;
      seen.add(key);
      let hash = 0;
      for (let i = 0; i < WINDOW; i += 1) {
        const unit = text.charCodeAt(i);
        hash = roll(hash, this.#fold[unit] ?? unit, this.#shift, this.#mask);
      }
      this.#bitmap[hash >>> 5] = (this.#bitmap[hash >>> 5] ?? 0) | (1 << (hash & 31));
      const list = this.#candidates.get(hash) ?? [];
      list.push({ text: stored, folded });
      this.#candidates.set(hash, list);
    };
    for (const text of all.folded) add(text, true);
    for (const text of all.exact) add(text, false);
    for (const list of this.#candidates.values()) list.sort((a, b) => b.text.length - a.text.length);
    this.size = seen.size;
  }

  /** Whether any string occurs in `text`. */
  test(text: string): boolean {
    return this.#next(text, 0) !== undefined;
  }

  /** `text` with every occurrence replaced by `replacement` (leftmost first, then longest). */
  replace(text: string, replacement: string): string {
    let match = this.#next(text, 0);
    if (match === undefined) return text;
    let out = '';
    let from = 0;
    while (match !== undefined) {
      out += text.slice(from, match.start) + replacement;
      from = match.end;
      match = this.#next(text, from);
    }
    return out + text.slice(from);
  }

  /** The first match starting at `from` or later. */
  #next(text: string, from: number): { start: number; end: number } | undefined {
    if (this.size === 0) return undefined;
    const fold = this.#fold;
    const bitmap = this.#bitmap;
    const mask = this.#mask;
    const shift = this.#shift;
    const length = text.length;
    let hash = 0;
    for (let i = from; i < length; i += 1) {
      const unit = text.charCodeAt(i);
      hash = ((hash << shift) ^ (fold[unit] ?? unit)) & mask;
      if (((bitmap[hash >>> 5] ?? 0) & (1 << (hash & 31))) !== 0 && i - from >= WINDOW - 1) {
        const start = i - (WINDOW - 1);
        const end = this.#longestAt(text, start, hash);
        if (end !== undefined) return { start, end };
      }
    }
    return undefined;
  }

  #longestAt(text: string, start: number, hash: number): number | undefined {
    const fold = this.#fold;
    for (const candidate of this.#candidates.get(hash) ?? []) {
      const wanted = candidate.text;
      if (start + wanted.length > text.length) continue;
      let same = true;
      for (let k = 0; k < wanted.length && same; k += 1) {
        const unit = text.charCodeAt(start + k);
        same = (candidate.folded ? fold[unit] : unit) === wanted.charCodeAt(k);
      }
      if (same) return start + wanted.length;
    }
    return undefined;
  }
}
