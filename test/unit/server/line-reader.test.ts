import { describe, expect, it } from 'vitest';
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { INVALID_LINE_PREVIEW_CHARS, LineReader, type LineEvent } from '../../../src/server/line-reader.js';

const json = (maxLineBytes = 1024): LineReader<unknown> =>
  new LineReader<unknown>({ maxLineBytes, parse: (line) => JSON.parse(line) as unknown });
const messages = (events: LineEvent<unknown>[]): unknown[] => events.flatMap((event) => (event.kind === 'message' ? [event.message] : []));

describe('LineReader', () => {
  it('frames lines split across chunks at any byte', () => {
    const text = '{"a":1}\n{"b":"héllo"}\n{"c":[1,2,3]}\n';
    const bytes = Buffer.from(text);
    for (let size = 1; size <= bytes.length; size += 1) {
      const reader = json();
      const out: unknown[] = [];
      for (let i = 0; i < bytes.length; i += size) out.push(...messages(reader.push(bytes.subarray(i, i + size))));
      expect(out).toEqual([{ a: 1 }, { b: 'héllo' }, { c: [1, 2, 3] }]);
      expect(reader.bufferedBytes).toBe(0);
    }
  });

  it('emits several messages from one chunk, in order', () => {
    expect(messages(json().push('{"n":1}\n{"n":2}\n{"n":3}\n'))).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  it('strips \\r before \\n and skips blank lines', () => {
    const events = json().push('{"n":1}\r\n\r\n\n   \n{"n":2}\n');
    expect(events).toEqual([
      { kind: 'message', message: { n: 1 } },
      { kind: 'message', message: { n: 2 } },
    ]);
  });

  it('holds an unterminated line until its newline arrives', () => {
    const reader = json();
    expect(reader.push('{"n":')).toEqual([]);
    expect(reader.bufferedBytes).toBe(5);
    expect(messages(reader.push('1}\n'))).toEqual([{ n: 1 }]);
  });

  it('counts lines that do not parse, keeps the last one, and goes on', () => {
    const reader = json();
    const events = reader.push('npm WARN something\n{"n":1}\nnot json either\n{"n":2}\n');
    expect(messages(events)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(events.filter((event) => event.kind === 'invalid')).toHaveLength(2);
    expect(reader.invalidLines).toBe(2);
    expect(reader.lastInvalidLine).toBe('not json either');
  });

  it('cuts the kept invalid line to a preview', () => {
    const reader = json(10_000);
    reader.push(`${'z'.repeat(5_000)}\n`);
    expect(reader.lastInvalidLine?.length).toBe(INVALID_LINE_PREVIEW_CHARS + 1);
  });

  it('treats valid JSON that is not JSON-RPC as invalid with the SDK parser', () => {
    const reader = new LineReader({ maxLineBytes: 1024, parse: deserializeMessage });
    const events = reader.push('{"hello":"world"}\n{"jsonrpc":"2.0","id":1,"result":{}}\n');
    expect(events.map((event) => event.kind)).toEqual(['invalid', 'message']);
    expect(reader.invalidLines).toBe(1);
  });

  it('accepts a line of exactly the cap, with or without \\r', () => {
    const line = `"${'a'.repeat(8)}"`; // 10 bytes
    expect(messages(json(10).push(`${line}\n`))).toEqual(['a'.repeat(8)]);
    expect(messages(json(10).push(`${line}\r\n`))).toEqual(['a'.repeat(8)]);
    expect(json(9).push(`${line}\n`)).toEqual([{ kind: 'tooLarge', bytes: 10 }]);
  });

  it('reports an oversize unterminated line once and does not grow while it goes on', () => {
    const cap = 1_000;
    const reader = json(cap);
    const events: LineEvent<unknown>[] = [];
    let maxBuffered = 0;
    for (let sent = 0; sent < 2 * cap; sent += 7) {
      events.push(...reader.push('x'.repeat(7)));
      maxBuffered = Math.max(maxBuffered, reader.bufferedBytes);
    }
    expect(events.filter((event) => event.kind === 'tooLarge')).toHaveLength(1);
    expect(maxBuffered).toBeLessThanOrEqual(cap + 1);
    expect(reader.bufferedBytes).toBe(0);
  });

  it('resumes at the line after an oversize one', () => {
    const reader = json(10);
    const events = [...reader.push('x'.repeat(30)), ...reader.push('yyy\n{"n":1}\n')];
    expect(events.map((event) => event.kind)).toEqual(['tooLarge', 'message']);
  });

  it('reports an oversize line that arrives whole in one chunk', () => {
    expect(
      json(10)
        .push(`${'x'.repeat(50)}\n{"n":1}\n`)
        .map((event) => event.kind),
    ).toEqual(['tooLarge', 'message']);
  });
});
