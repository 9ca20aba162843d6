import { describe, expect, it } from 'vitest';
import { StderrTail } from '../../../src/server/stderr-tail.js';

describe('StderrTail', () => {
  it('keeps the last lines, joining chunks split mid-line and stripping \\r', () => {
    const tail = new StderrTail(2);
    tail.push('one\r\ntw');
    tail.push(Buffer.from('o\nthree\n'));
    expect(tail.lines()).toEqual(['two', 'three']);
  });

  it('includes an unterminated last line without exceeding the line count', () => {
    const tail = new StderrTail(2);
    tail.push('a\nb\nc');
    expect(tail.lines()).toEqual(['b', 'c']);
  });

  it('cuts an endless line while it is still being written', () => {
    const tail = new StderrTail(3, 10);
    for (let i = 0; i < 1000; i += 1) tail.push('x'.repeat(100));
    tail.push('\nnext\n');
    expect(tail.lines()).toEqual([`${'x'.repeat(10)}…`, 'next']);
  });

  it('decodes a multi-byte character split across chunks', () => {
    const tail = new StderrTail(1);
    const bytes = Buffer.from('é\n');
    tail.push(bytes.subarray(0, 1));
    tail.push(bytes.subarray(1));
    expect(tail.lines()).toEqual(['é']);
  });
});
