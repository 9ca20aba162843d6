/**
 * The last lines a server wrote to stderr, for error messages. Memory is bounded twice: at most
 * `maxLines` lines, each cut to `maxLineChars` characters (the cut applies while a line is still
 * being written, so one endless line cannot grow without bound either).
 */
import { StringDecoder } from 'node:string_decoder';
import { RingBuffer } from './ring-buffer.js';

/** How much of one stderr line is kept. */
export const STDERR_LINE_MAX_CHARS = 1000;

export class StderrTail {
  readonly #lines: RingBuffer<string>;
  readonly #maxLineChars: number;
  readonly #decoder = new StringDecoder('utf8');
  #partial = '';
  #partialCut = false;

  /**
   * @example
   * const tail = new StderrTail(2);
   * tail.push('one\ntwo\nthr');
   * tail.lines(); // ['two', 'thr']
   */
  constructor(maxLines: number, maxLineChars = STDERR_LINE_MAX_CHARS) {
    this.#lines = new RingBuffer<string>(maxLines);
    this.#maxLineChars = maxLineChars;
  }

  push(chunk: Uint8Array | string): void {
    const text = typeof chunk === 'string' ? chunk : this.#decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    let start = 0;
    for (;;) {
      const newline = text.indexOf('\n', start);
      if (newline === -1) {
        this.#append(text.slice(start));
        return;
      }
      this.#append(text.slice(start, newline));
      this.#lines.push(this.#partial.endsWith('\r') ? this.#partial.slice(0, -1) : this.#partial);
      this.#partial = '';
      this.#partialCut = false;
      start = newline + 1;
    }
  }

  /** The kept lines, oldest first; an unterminated last line is included. */
  lines(): string[] {
    const lines = this.#lines.toArray();
    if (this.#partial !== '') {
      lines.push(this.#partial);
      if (lines.length > this.#lines.capacity) lines.shift();
    }
    return lines;
  }

  #append(piece: string): void {
    if (this.#partialCut || piece === '') return;
    const room = this.#maxLineChars - this.#partial.length;
    if (piece.length <= room) {
      this.#partial += piece;
      return;
    }
    this.#partial += `${piece.slice(0, room)}…`;
    this.#partialCut = true;
  }
}
