import { describe, expect, it } from 'vitest';
import { RingBuffer } from '../../../src/server/ring-buffer.js';

describe('RingBuffer', () => {
  it('keeps items oldest first while below capacity', () => {
    const ring = new RingBuffer<number>(3);
    ring.push(1);
    ring.push(2);
    expect(ring.toArray()).toEqual([1, 2]);
    expect(ring.size).toBe(2);
  });

  it('drops the oldest item once full and keeps the order', () => {
    const ring = new RingBuffer<number>(3);
    for (let i = 1; i <= 10; i += 1) ring.push(i);
    expect(ring.toArray()).toEqual([8, 9, 10]);
    expect(ring.size).toBe(3);
  });

  it('never holds more than its capacity, whatever the number of pushes', () => {
    const ring = new RingBuffer<number>(5);
    for (let n = 0; n < 23; n += 1) {
      ring.push(n);
      const expected = Array.from({ length: Math.min(n + 1, 5) }, (_, i) => n - Math.min(n + 1, 5) + 1 + i);
      expect(ring.toArray()).toEqual(expected);
    }
  });

  it('keeps nothing at capacity 0', () => {
    const ring = new RingBuffer<string>(0);
    ring.push('a');
    expect(ring.toArray()).toEqual([]);
  });

  it('starts over after clear', () => {
    const ring = new RingBuffer<string>(2);
    ring.push('a');
    ring.push('b');
    ring.push('c');
    ring.clear();
    ring.push('d');
    expect(ring.toArray()).toEqual(['d']);
  });

  it('rejects a negative or fractional capacity', () => {
    expect(() => new RingBuffer(-1)).toThrow(RangeError);
    expect(() => new RingBuffer(1.5)).toThrow(RangeError);
  });

  it('returns a copy, so callers cannot change what it holds', () => {
    const ring = new RingBuffer<string>(2);
    ring.push('a');
    ring.toArray().push('x');
    expect(ring.toArray()).toEqual(['a']);
  });
});
