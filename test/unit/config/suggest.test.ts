import { describe, expect, it } from 'vitest';
import { closest, editDistance, quotedList } from '../../../src/config/suggest.js';

describe('suggestions for misspelled words', () => {
  it('counts insertions, deletions, substitutions and swaps as one edit each', () => {
    expect(editDistance('command', 'command')).toBe(0);
    expect(editDistance('comand', 'command')).toBe(1);
    expect(editDistance('evn', 'env')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('finds a word equal ignoring case, or within two edits', () => {
    const keys = ['command', 'args', 'env', 'cwd', 'url'];
    expect(closest('ARGS', keys)).toBe('args');
    expect(closest('comand', keys)).toBe('command');
    expect(closest('commnad', keys)).toBe('command');
    expect(closest('timeout', keys)).toBeUndefined();
  });

  it('allows only one edit for words of three letters or fewer', () => {
    expect(closest('ur', ['url', 'cwd'])).toBe('url');
    expect(closest('id', ['url', 'cwd'])).toBeUndefined();
  });

  it('quotes a list of words for a message', () => {
    expect(quotedList(['a'])).toBe('"a"');
    expect(quotedList(['a', 'b', 'c'])).toBe('"a", "b" or "c"');
  });
});
