import fc from 'fast-check';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSandboxPathError } from '../src/errors/index.js';
import { SandboxPathRewriter } from '../src/sandbox/path-rewriter.js';

let base: string;
let sandbox: string;
let host: string;
let rewriter: SandboxPathRewriter;
/** Roots with spaces and parentheses, to exercise the URI encoding in results. */
let oddRewriter: SandboxPathRewriter;

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'mcp-actors-rewriter-prop-')));
  sandbox = path.join(base, 'sandbox');
  host = path.join(base, 'project');
  const outside = path.join(base, 'outside');
  for (const dir of ['a/b', 'c', 'src'].map((d) => path.join(sandbox, d))) mkdirSync(dir, { recursive: true });
  for (const dir of [host, outside, `${sandbox}_evil`, path.join(base, 'sand box'), path.join(base, 'my project (1)')])
    mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(sandbox, 'a', 'file.txt'), 'x');
  writeFileSync(path.join(outside, 'secret.txt'), 'secret');
  symlinkSync('a', path.join(sandbox, 'in-link'));
  symlinkSync('.', path.join(sandbox, 'a', 'self'));
  symlinkSync('nope', path.join(sandbox, 'dangle-in'));
  symlinkSync(outside, path.join(sandbox, 'out-link'));
  symlinkSync(path.join(outside, 'secret.txt'), path.join(sandbox, 'out-file'));
  symlinkSync('../outside/nope', path.join(sandbox, 'dangle-out'));
  symlinkSync('../..', path.join(sandbox, 'a', 'up'));
  symlinkSync('../../sandbox/c', path.join(sandbox, 'a', 'round-trip'));
  symlinkSync('../sandbox_evil', path.join(sandbox, 'evil-link'));
  rewriter = new SandboxPathRewriter({ sandboxRoot: sandbox, hostRoot: host });
  oddRewriter = new SandboxPathRewriter({ sandboxRoot: path.join(base, 'sand box'), hostRoot: path.join(base, 'my project (1)') });
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

const safeSegment = fc.oneof(
  fc.constantFrom('a', 'b', 'c', 'src', 'main.py', '.', '..', 'x y', 'in-link', 'dangle-in', 'file.txt', '...', '.hidden'),
  fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,7}$/),
);

/** Does a `..` climb above the start? (Lexically, as path.posix.normalize sees it.) */
function staysInside(segments: readonly string[]): boolean {
  let depth = 0;
  for (const segment of segments) {
    if (segment === '..') depth--;
    else if (segment !== '.') depth++;
    if (depth < 0) return false;
  }
  return true;
}

/** The deepest existing ancestor of `p` (following links, as the kernel does), made real. */
function realOfLongestExistingPrefix(p: string): string {
  let current = p;
  while (!existsSync(current)) current = path.dirname(current);
  return realpathSync(current);
}

describe('SandboxPathRewriter (properties)', () => {
  it('round-trips logical paths: toLogical(toSandbox(p)) is the normalised p', () => {
    fc.assert(
      fc.property(
        fc.array(safeSegment, { minLength: 0, maxLength: 6 }),
        fc.constantFrom('/', '//', '/./'),
        fc.boolean(),
        (segments, separator, dotPrefix) => {
          fc.pre(staysInside(segments));
          const p = (dotPrefix ? './' : '') + segments.join(separator);
          const expected = path.posix.normalize(p === '' ? '.' : p).replace(/(.)\/$/, '$1');
          expect(rewriter.toLogical(rewriter.toSandbox(p))).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('either returns a path inside the sandbox or throws SandboxPathError, for any path string', () => {
    const fragment = fc.oneof(
      {
        arbitrary: fc.constantFrom(
          'in-link',
          'out-link',
          'out-file',
          'dangle-out',
          'dangle-in',
          'evil-link',
          'up',
          'self',
          'round-trip',
          'a',
          '..',
          '.',
        ),
        weight: 4,
      },
      {
        arbitrary: fc.constantFrom(
          '',
          'b',
          'c',
          '%2e%2e',
          '%2E',
          '%2f',
          '%2F',
          '%252e',
          '%00',
          '%20',
          '\0',
          '~',
          '\\',
          '..\\',
          '\\..',
          'a\\b',
          'secret.txt',
          'outside',
          'sandbox',
        ),
        weight: 2,
      },
      { arbitrary: fc.string({ maxLength: 6 }), weight: 1 },
    );
    const prefix = fc.constantFrom(
      '',
      '/',
      './',
      '~/',
      '//',
      '/etc/',
      'file://',
      'file:',
      'file:/',
      'FILE://',
      () => `${host}/`,
      () => `${sandbox}/`,
      () => `${sandbox}/a/`,
      () => `${sandbox}_evil/`,
      () => `${base}/`,
      () => `${base}/outside/`,
      () => `file://${host}/`,
      () => `file://localhost${sandbox}/`,
      () => `file://evil${host}/`,
      () => `FILE://${sandbox}/`,
      () => `${sandbox}/../`,
    );
    fc.assert(
      fc.property(
        prefix,
        fc.array(fragment, { maxLength: 6 }),
        fc.constantFrom('/', '/', '/', '//', '\\'),
        (makePrefix, fragments, separator) => {
          const value = (typeof makePrefix === 'function' ? makePrefix() : makePrefix) + fragments.join(separator);
          let result: string;
          try {
            result = rewriter.toSandbox(value);
          } catch (error) {
            if (isSandboxPathError(error)) return;
            throw error;
          }
          const relative = path.relative(sandbox, result);
          // `.. ` (with a space) is a name like any other: only a `..` segment climbs.
          expect(relative === '..' || relative.startsWith('../') || path.isAbsolute(relative), `${JSON.stringify(value)} → ${result}`).toBe(
            false,
          );
          const real = realOfLongestExistingPrefix(result);
          expect(real === sandbox || real.startsWith(`${sandbox}/`), `${JSON.stringify(value)} → ${result} → ${real}`).toBe(true);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('rewrites a result idempotently', () => {
    const textOf = (r: SandboxPathRewriter) =>
      fc
        .array(
          fc.oneof(
            fc.constantFrom(
              r.sandboxRoot,
              `${r.sandboxRoot}/`,
              `${r.sandboxRoot}//`,
              `${r.sandboxRoot}/a`,
              `${r.sandboxRoot}_other`,
              `${r.sandboxRoot}x`,
              `${r.sandboxRoot}.`,
              `file://${r.sandboxRoot}/c`,
              `file://localhost${r.sandboxRoot}`,
              `FILE://${r.sandboxRoot}`,
              r.hostRoot,
              `file://${r.hostRoot}`,
              ' ',
              '/',
              '.',
              ':',
              '"',
              '\n',
              '(',
              ')',
              'a',
              '//',
              'file://',
              '%20',
              '.x',
            ),
            fc.string({ maxLength: 4 }),
          ),
          { maxLength: 10 },
        )
        .map((parts) => parts.join(''));
    const resultOf = (r: SandboxPathRewriter) =>
      fc.record({
        content: fc.array(
          fc.oneof(
            textOf(r).map((text) => ({ type: 'text', text })),
            textOf(r).map((data) => ({ type: 'image', data, mimeType: 'image/png' })),
            fc.record({ uri: textOf(r), text: textOf(r) }).map((resource) => ({ type: 'resource', resource })),
            textOf(r).map((uri) => ({ type: 'resource_link', uri, name: 'x' })),
          ),
          { maxLength: 4 },
        ),
        structuredContent: fc.dictionary(
          fc.string({ maxLength: 4 }),
          fc.oneof(textOf(r), fc.array(textOf(r), { maxLength: 3 }), fc.integer()),
        ),
      });
    const cases = fc.constantFrom('plain', 'odd').chain((which) => {
      const r = which === 'plain' ? rewriter : oddRewriter;
      return resultOf(r).map((result) => [r, result] as const);
    });
    fc.assert(
      fc.property(cases, ([r, result]) => {
        const once = r.rewriteResult(result);
        expect(r.rewriteResult(once)).toEqual(once);
      }),
      { numRuns: 500 },
    );
  });

  it('never mutates the arguments, and __proto__ keys never pollute Object.prototype', () => {
    const leaf = fc.oneof(
      fc.constantFrom('src/main.py', '.', 'a/b', '../x', '/etc/passwd', 'out-link', '%2e%2e', 'yes'),
      fc.string({ maxLength: 5 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
    );
    const key = fc.oneof(
      fc.constantFrom('path', 'paths', 'content', 'edits', 'source', '__proto__', 'constructor', 'prototype', 'polluted', 'toString'),
      fc.string({ maxLength: 4 }),
    );
    const { json } = fc.letrec<{ json: string }>((tie) => ({
      json: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf.map((v) => JSON.stringify(v)),
        fc.array(tie('json'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
        fc
          .array(fc.tuple(key, tie('json')), { maxLength: 4 })
          .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
      ),
    }));
    const toStringBefore = Object.getOwnPropertyDescriptor(Object.prototype, 'toString');
    const argsText = fc
      .array(fc.tuple(key, json), { maxLength: 5 })
      .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);
    fc.assert(
      fc.property(argsText, (text) => {
        const args: unknown = JSON.parse(text);
        const before = JSON.stringify(args);
        let out: unknown;
        try {
          out = rewriter.rewriteArgs(args);
        } catch (error) {
          if (!isSandboxPathError(error)) throw error;
        }
        expect(JSON.stringify(args)).toBe(before);
        expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('polluted');
        expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
        expect(Object.getOwnPropertyDescriptor(Object.prototype, 'toString')).toStrictEqual(toStringBefore);
        if (out !== undefined) {
          expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
          const inputs = objectsOf(args);
          for (const object of objectsOf(out)) expect(inputs.has(object)).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });
});

function objectsOf(value: unknown, into = new Set<object>()): Set<object> {
  if (typeof value !== 'object' || value === null || into.has(value)) return into;
  into.add(value);
  for (const key of Object.keys(value)) objectsOf((value as Record<string, unknown>)[key], into);
  return into;
}
