/**
 * The last word on what a tool result may say about where the sandbox really is. The path rewriter
 * first turns the sandbox root, spelt as the server spelt it, back into logical paths; whatever
 * still names the root or one of the sandbox's private folders (its temp dir, its checkpoints,
 * its store) after that — in another case, with backslashes, percent-encoded, JSON- or
 * HTML-escaped, or glued to other text — is masked here.
 */

/** What an occurrence of the sandbox root becomes when it cannot be turned back into a logical path. */
export const SANDBOX_MASK = '<sandbox>';
/** What an occurrence of a private folder of the sandbox (temp dir, checkpoints, store) becomes. */
export const PRIVATE_MASK = '<sandbox-private>';

export interface MaskedDir {
  /** Absolute, normalised directory whose every mention is masked. */
  readonly dir: string;
  readonly mask: string;
}

/**
 * Masks every spelling of some directories in text: each character may come as itself in any
 * case, percent-encoded (also twice: `%252f`), as `\uXXXX`, `\xXX` or an HTML character
 * reference; each `/` also as one or more `\`, `\\` or `\/` (Windows and JSON forms).
 *
 * @example
 * const masker = new PathMasker([{ dir: '/tmp/sb-1/worktree', mask: SANDBOX_MASK }]);
 * masker.mask('C:\\TMP\\SB-1\\WORKTREE\\a.txt'); // 'C:<sandbox>\\a.txt'
 */
export class PathMasker {
  readonly #pattern: RegExp | undefined;
  readonly #masks: readonly string[];
  /** A cheap test that the text could hold a spelling at all (most results hold none). */
  readonly #hint: RegExp | undefined;

  constructor(dirs: readonly MaskedDir[]) {
    const sorted = [...new Map(dirs.filter((d) => d.dir.length > 1).map((d) => [d.dir, d])).values()].sort(
      (a, b) => b.dir.length - a.dir.length,
    );
    this.#masks = sorted.map((d) => d.mask);
    if (sorted.length === 0) return;
    this.#pattern = new RegExp(sorted.map((d) => `(${looseSpelling(d.dir)})`).join('|'), 'gi');
    const needles = sorted.map((d) => longestSegment(d.dir)).filter((needle) => needle.length > 0);
    this.#hint = new RegExp(`[%\\\\&]${needles.length > 0 ? `|${needles.map(escapeRegExp).join('|')}` : ''}`, 'i');
  }

  /** `text` with every spelling of the directories replaced by their masks. */
  mask(text: string): string {
    if (this.#pattern === undefined || this.#hint === undefined || !this.#hint.test(text)) return text;
    return text.replace(this.#pattern, (...groups: unknown[]) => {
      for (let i = 0; i < this.#masks.length; i++) {
        if (groups[i + 1] !== undefined) return this.#masks[i] as string;
      }
      return SANDBOX_MASK;
    });
  }
}

const SEPARATOR = String.raw`(?:/|\\|%(?:25)*(?:2f|5c)|\\u00(?:2f|5c)|\\x(?:2f|5c)|&#(?:x0*(?:2f|5c)|0*(?:47|92));?)`;

/** A regular expression source matching `dir` in any of the spellings `PathMasker` knows. */
function looseSpelling(dir: string): string {
  let out = '';
  for (const char of dir) {
    if (char === '/') {
      out += `${SEPARATOR}+`;
      continue;
    }
    const code = char.codePointAt(0) as number;
    const bytes = [...Buffer.from(char, 'utf8')];
    const forms = [escapeRegExp(char), bytes.map((byte) => `%(?:25)*${hex(byte, 2)}`).join('')];
    if (code <= 0xffff) forms.push(String.raw`\\u${hex(code, 4)}`);
    if (code <= 0xff) forms.push(String.raw`\\x${hex(code, 2)}`);
    forms.push(`&#(?:x0*${hex(code, 1)}|0*${code});?`);
    out += `(?:${forms.join('|')})`;
  }
  return out;
}

function hex(value: number, width: number): string {
  return value.toString(16).padStart(width, '0');
}

function longestSegment(dir: string): string {
  return dir.split('/').reduce((longest, segment) => (segment.length > longest.length ? segment : longest), '');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
