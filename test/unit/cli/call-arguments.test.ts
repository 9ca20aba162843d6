import { describe, expect, it } from 'vitest';
import { parseCallArguments } from '../../../src/cli/call-arguments.js';

describe('parseCallArguments', () => {
  it('reads one JSON object, and no arguments as {}', () => {
    expect(parseCallArguments('{"message":"hi","n":[1]}')).toEqual({ message: 'hi', n: [1] });
    expect(parseCallArguments(undefined)).toEqual({});
    expect(parseCallArguments('  ')).toEqual({});
  });

  it('says where the JSON is broken and what a person most likely did', () => {
    expect(() => parseCallArguments('{"a":1,}')).toThrow(/not valid JSON: a comma before "}" at character 7 — remove the trailing comma/);
    expect(() => parseCallArguments("{'a':1}")).toThrow(/a key in single quotes/);
  });

  it('refuses JSON that is not an object', () => {
    expect(() => parseCallArguments('[1]')).toThrow('the tool arguments must be a JSON object, got a list');
    expect(() => parseCallArguments('"hi"')).toThrow('got a string');
    expect(() => parseCallArguments('null')).toThrow('got null');
  });
});
