/**
 * Newline framing for a byte stream with a cap per line, not per buffer: the SDK's `ReadBuffer`
 * caps everything it holds at once and throws, which cannot tell one huge message from many small
 * ones. Here a line that grows past `maxLineBytes` is reported once as `tooLarge` while it is
 * still unterminated, and its bytes are discarded up to the next newline, so memory stays bounded
 * by the cap plus one chunk whatever the stream sends.
 *
 * Each complete line has a trailing `\r` removed and is handed to `parse`; a line that `parse`
 * rejects is counted and reported as `invalid`, and reading goes on. Blank lines are skipped.
 */

export type LineEvent<T> =
  | { readonly kind: 'message'; readonly message: T }
  | { readonly kind: 'invalid'; readonly line: string; readonly error: unknown }
  | { readonly kind: 'tooLarge'; readonly bytes: number };

export interface LineReaderOptions<T> {
  /** The longest line accepted, in bytes, not counting `\n` or a `\r` before it. */
  readonly maxLineBytes: number;
  /** Turns one line into a message; throwing marks the line invalid. */
  readonly parse: (line: string) => T;
}

/** How much of an invalid line is kept for diagnostics. */
export const INVALID_LINE_PREVIEW_CHARS = 200;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export class LineReader<T> {
  readonly #maxLineBytes: number;
  readonly #parse: (line: string) => T;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** True while skipping the rest of a line already reported too large. */
  #discarding = false;
  #invalidLines = 0;
  #lastInvalidLine: string | undefined;

  /**
   * @example
   * const reader = new LineReader({ maxLineBytes: 1024, parse: (line) => JSON.parse(line) as unknown });
   * reader.push(Buffer.from('{"a":1}\n{"b"')); // [{ kind: 'message', message: { a: 1 } }]
   * reader.push(Buffer.from(':2}\n'));         // [{ kind: 'message', message: { b: 2 } }]
   */
  constructor(options: LineReaderOptions<T>) {
    if (!Number.isInteger(options.maxLineBytes) || options.maxLineBytes < 1) {
      throw new RangeError(`maxLineBytes must be a positive integer, got ${options.maxLineBytes}`);
    }
    this.#maxLineBytes = options.maxLineBytes;
    this.#parse = options.parse;
  }

  /** Lines that `parse` rejected so far. */
  get invalidLines(): number {
    return this.#invalidLines;
  }

  /** The last rejected line, cut to {@link INVALID_LINE_PREVIEW_CHARS} characters. */
  get lastInvalidLine(): string | undefined {
    return this.#lastInvalidLine;
  }

  /** Bytes held for the current unterminated line. */
  get bufferedBytes(): number {
    return this.#pendingBytes;
  }

  /** Feeds one chunk; returns what it completed, in stream order. */
  push(chunk: Uint8Array | string): LineEvent<T>[] {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const events: LineEvent<T>[] = [];
    let start = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.#hold(bytes.subarray(start), events);
        break;
      }
      const segment = bytes.subarray(start, newline);
      start = newline + 1;
      if (this.#discarding) {
        this.#discarding = false;
        continue;
      }
      this.#complete(segment, events);
    }
    return events;
  }

  #hold(rest: Buffer, events: LineEvent<T>[]): void {
    if (this.#discarding) return;
    const total = this.#pendingBytes + rest.length;
    // One byte of slack: the line may yet end in `\r\n`, and the `\r` does not count.
    if (total > this.#maxLineBytes + 1) {
      events.push({ kind: 'tooLarge', bytes: total });
      this.#reset();
      this.#discarding = true;
      return;
    }
    this.#pending.push(rest);
    this.#pendingBytes = total;
  }

  #complete(segment: Buffer, events: LineEvent<T>[]): void {
    const whole = this.#pending.length === 0 ? segment : Buffer.concat([...this.#pending, segment]);
    this.#reset();
    const end = whole.length > 0 && whole[whole.length - 1] === CARRIAGE_RETURN ? whole.length - 1 : whole.length;
    if (end > this.#maxLineBytes) {
      events.push({ kind: 'tooLarge', bytes: end });
      return;
    }
    const line = whole.toString('utf8', 0, end);
    if (line.trim() === '') return;
    try {
      events.push({ kind: 'message', message: this.#parse(line) });
    } catch (error) {
      this.#invalidLines += 1;
      this.#lastInvalidLine = preview(line);
      events.push({ kind: 'invalid', line: this.#lastInvalidLine, error });
    }
  }

  #reset(): void {
    this.#pending = [];
    this.#pendingBytes = 0;
  }
}

function preview(line: string): string {
  return line.length <= INVALID_LINE_PREVIEW_CHARS ? line : `${line.slice(0, INVALID_LINE_PREVIEW_CHARS)}…`;
}
