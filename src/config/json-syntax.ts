/**
 * Where a JSON text breaks and what a person most likely did (a trailing comma, a comment, single
 * quotes, a missing comma): for the JSON files config reads (`agents import`, `parseMcpServersJson`) and the
 * JSON the CLI reads (`agents call` arguments).
 */

export interface JsonSyntaxError {
  readonly offset: number;
  readonly problem: string;
  readonly hint: string;
}

/**
 * The first JSON syntax error of `text`, with its offset and what a person most likely did
 * (a trailing comma, a comment, single quotes, a missing comma); undefined for valid JSON.
 * `JSON.parse` in Node 20 does not always say where.
 */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let at = 0;
  const fail = (problem: string, hint: string, offset = at): never => {
    throw new StopScanning({ offset, problem, hint });
  };
  const space = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at] ?? '')) at++;
    if (text.startsWith('//', at) || text.startsWith('/*', at)) fail('a comment', 'JSON does not allow comments: remove it');
  };
  const end = (what: string): never => fail(`it ends inside ${what}`, 'a closing bracket, brace or quote is missing');
  const string = (): void => {
    at++;
    while (at < text.length && text[at] !== '"') {
      const char = text.charCodeAt(at);
      if (char < 0x20) fail('a line break or control character inside a string', 'write \\n for a line break, or close the string with "');
      if (text[at] === '\\') {
        const escape = text[at + 1] ?? '';
        if (escape === 'u' ? !/^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6)) : !'"\\/bfnrt'.includes(escape) || escape === '') {
          fail(`a bad escape "\\${escape}" in a string`, 'write \\\\ for a backslash (Windows paths: C:\\\\Users or C:/Users)');
        }
        at += escape === 'u' ? 6 : 2;
      } else at++;
    }
    if (at >= text.length) end('a string');
    at++;
  };
  const value = (): void => {
    space();
    const char = text[at];
    if (char === undefined) end('the file: a value is missing');
    if (char === '{') {
      members('}', () => {
        if (text[at] === "'") fail('a key in single quotes', 'JSON keys use double quotes: "key"');
        if (text[at] !== '"') {
          const bare = /[A-Za-z_$]/.test(text[at] ?? '');
          fail(
            'a key without double quotes',
            bare ? 'write the key in double quotes: "key": value' : 'a key in double quotes was expected',
          );
        }
        string();
        space();
        if (text[at] !== ':') fail('a missing ":" after a key', 'write "key": value');
        at++;
        value();
      });
      return;
    }
    if (char === '[') {
      members(']', value);
      return;
    }
    if (char === '"') {
      string();
      return;
    }
    if (char === "'") fail('a string in single quotes', 'JSON strings use double quotes');
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(at, at + 400));
    if (!literal) {
      const closing = char === '}' || char === ']';
      const hint = closing ? 'a value is missing before it' : 'write a string in double quotes, a number, true, false or null';
      fail(`an unexpected ${JSON.stringify(char)}`, hint);
    }
    at += literal?.[0].length ?? 0;
  };
  const members = (close: '}' | ']', member: () => void): void => {
    at++;
    space();
    if (text[at] === close) {
      at++;
      return;
    }
    for (;;) {
      member();
      space();
      if (text[at] === close) {
        at++;
        return;
      }
      if (text[at] === undefined) end(close === '}' ? 'an object' : 'a list');
      if (text[at] !== ',') fail(`a missing "," or "${close}"`, 'separate the entries with commas');
      const comma = at;
      at++;
      space();
      if (text[at] === close) fail(`a comma before "${close}"`, 'remove the trailing comma: JSON does not allow one', comma);
    }
  };
  try {
    value();
    space();
    if (at < text.length) {
      fail('more text after the end of the JSON value', 'a file holds one value: remove the rest, or check the brackets above');
    }
    return undefined;
  } catch (error) {
    if (error instanceof StopScanning) return error.found;
    throw error;
  }
}

/** Unwinds the scanner at the first error. */
class StopScanning extends Error {
  constructor(readonly found: JsonSyntaxError) {
    super(found.problem);
  }
}
