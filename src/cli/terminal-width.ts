/**
 * How wide text is on a terminal, and cutting a line to fit: a terminal gives East Asian wide
 * characters and most emoji two columns, combining marks none, and colour codes none. A line cut
 * to the terminal's width never wraps, so a redraw knows how many rows it drew.
 */

/** An SGR colour code (`ESC [ … m`): kept, and zero columns wide. */
// eslint-disable-next-line no-control-regex -- matching the ESC of a colour code is the point
const SGR = /^\u001b\[[0-9;]*m/;
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;

/** Columns a terminal gives one code point: 0 (combining, format), 2 (wide, fullwidth, emoji) or 1. */
export function codePointWidth(codePoint: number): 0 | 1 | 2 {
  if (ZERO_WIDTH.test(String.fromCodePoint(codePoint))) return 0;
  const wide =
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0xa4cf && codePoint !== 0x303f) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x1f300 && codePoint <= 0x1f64f) ||
    (codePoint >= 0x1f900 && codePoint <= 0x1f9ff) ||
    (codePoint >= 0x20000 && codePoint <= 0x3fffd);
  return wide ? 2 : 1;
}

/**
 * Text made safe to print in one row: control characters (a server's stderr may hold cursor
 * moves or tabs) become spaces, so only the codes this program adds reach the terminal.
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- replacing control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

/** Columns `text` takes on a terminal; SGR colour codes take none. */
export function displayWidth(text: string): number {
  let width = 0;
  for (let i = 0; i < text.length;) {
    const sgr = SGR.exec(text.slice(i, i + 32));
    if (sgr) {
      i += sgr[0].length;
      continue;
    }
    const codePoint = text.codePointAt(i);
    if (codePoint === undefined) break; // never: i < text.length
    width += codePointWidth(codePoint);
    i += codePoint > 0xffff ? 2 : 1;
  }
  return width;
}

/**
 * `line` cut to at most `columns` columns, ending in `…` when cut (colour reset after it); a line
 * that fits is returned as it is.
 *
 * @example
 * fitLine('SERVER  STATE  LAST ERROR', 12); // 'SERVER  STA…'
 */
export function fitLine(line: string, columns: number): string {
  if (displayWidth(line) <= columns) return line;
  if (columns <= 0) return '';
  let width = 0;
  let out = '';
  let coloured = false;
  for (let i = 0; i < line.length;) {
    const sgr = SGR.exec(line.slice(i, i + 32));
    if (sgr) {
      out += sgr[0];
      coloured = true;
      i += sgr[0].length;
      continue;
    }
    const codePoint = line.codePointAt(i);
    if (codePoint === undefined) break; // never: i < line.length
    const w = codePointWidth(codePoint);
    if (width + w > columns - 1) break;
    out += String.fromCodePoint(codePoint);
    width += w;
    i += codePoint > 0xffff ? 2 : 1;
  }
  return `${out}…${coloured ? '\u001b[0m' : ''}`;
}

/** Rows a line of `width` columns takes on a terminal `columns` wide (an empty line takes one). */
export function rowsOf(width: number, columns: number): number {
  return Math.max(1, Math.ceil(width / Math.max(1, columns)));
}
