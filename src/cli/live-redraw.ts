/**
 * Redrawing a block of lines in place on a terminal. Every line is cut to the terminal's width
 * (one column kept free, so no terminal wraps it) and the block to its height, and a redraw
 * moves the cursor up by the rows last drawn — counted in the terminal's rows, at its width now,
 * since a terminal that was made narrower re-wraps what it shows — then clears to the end of the
 * screen. So a redraw leaves nothing behind, also after a resize.
 */
import { displayWidth, fitLine, rowsOf } from './terminal-width.js';

/** The size of the terminal drawn on. */
export interface TerminalSize {
  readonly columns: number;
  readonly rows: number;
}

/** What one redraw writes, and the widths of the lines it drew (for the next redraw). */
export interface Redraw {
  readonly text: string;
  readonly widths: readonly number[];
}

/**
 * The text that replaces the block last drawn (`previous`: the widths of its lines) with `lines`.
 *
 * @example
 * let widths: readonly number[] = [];
 * ({ text, widths } = redraw(widths, ['header', 'row'], { columns: 80, rows: 24 }));
 */
export function redraw(previous: readonly number[], lines: readonly string[], size: TerminalSize): Redraw {
  const columns = Math.max(2, size.columns);
  const up = previous.reduce((sum, width) => sum + rowsOf(width, columns), 0);
  // The cursor row below the block must stay on screen, or the top line scrolls out of reach.
  const room = Math.max(1, size.rows - 1);
  const shown =
    lines.length <= room ? lines : [...lines.slice(0, room - 1), `… ${lines.length - room + 1} more lines: make the terminal taller`];
  const fitted = shown.map((line) => fitLine(line, columns - 1));
  const clear = previous.length === 0 ? '' : `\r${up > 0 ? `\u001b[${up}A` : ''}\u001b[J`;
  return { text: `${clear}${fitted.map((line) => `${line}\n`).join('')}`, widths: fitted.map(displayWidth) };
}

/** A block redrawn in place on one terminal: remembers what it drew last. */
export class LiveArea {
  private widths: readonly number[] = [];

  constructor(
    private readonly write: (text: string) => void,
    private readonly size: () => TerminalSize,
  ) {}

  draw(lines: readonly string[]): void {
    const next = redraw(this.widths, lines, this.size());
    this.widths = next.widths;
    this.write(next.text);
  }
}
