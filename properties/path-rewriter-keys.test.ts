/**
 * The rewriting law, whatever the key and however deep: a path inside the project, put anywhere in
 * the arguments, comes out inside the sandbox and maps back to where it was; a path outside, in any
 * spelling (absolute, `file:` URI, percent-encoded, `..`, `~`, Windows), is refused.
 */
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSandboxPathError } from '../src/errors/index.js';
import { SandboxPathRewriter } from '../src/sandbox/path-rewriter.js';

let base: string;
let sandbox: string;
let host: string;
let outside: string;
let rewriter: SandboxPathRewriter;

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'mcp-actors-rewriter-keys-')));
  sandbox = path.join(base, 'sandbox');
  host = path.join(base, 'project');
  outside = path.join(base, 'outside');
  for (const dir of [path.join(sandbox, 'src'), host, outside]) mkdirSync(dir, { recursive: true });
  rewriter = new SandboxPathRewriter({ sandboxRoot: sandbox, hostRoot: host });
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

const segment = fc.oneof(fc.constantFrom('a', 'src', 'main.py', '.hidden', 'x-y'), fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,7}$/));
const segments = fc.array(segment, { minLength: 1, maxLength: 4 });
/** Keys of every sort: the attack's, content-like ones, path-like ones, and any string at all. */
const key = fc.oneof(
  fc.constantFrom('location', 'target', 'input', 'uri', 'url', 'content', 'message', 'query', 'pattern', 'path', 'id', '__proto__'),
  fc
    .string({ maxLength: 8 })
    .filter((k) => !k.includes('/') && !k.includes('\\') && !k.startsWith('~') && !/^file:/i.test(k) && !k.split(/\s/).includes('..')),
);
/** Where the value is put: a chain of object keys and array positions. */
const placement = fc.array(
  fc.oneof(
    key.map((k) => ({ key: k })),
    fc.nat({ max: 2 }).map((index) => ({ index })),
  ),
  { maxLength: 4 },
);

type Step = { key: string } | { index: number };

function place(value: unknown, steps: readonly Step[]): unknown {
  return steps.reduceRight<unknown>((inner, step) => {
    if ('index' in step) return [...Array.from({ length: step.index }, () => 'plain words'), inner];
    const object: Record<string, unknown> = {};
    Object.defineProperty(object, step.key, { value: inner, enumerable: true, writable: true, configurable: true });
    return object;
  }, value);
}

function pick(value: unknown, steps: readonly Step[]): unknown {
  return steps.reduce<unknown>(
    (inner, step) => ('index' in step ? (inner as unknown[])[step.index] : (inner as Record<string, unknown>)[step.key]),
    value,
  );
}

/** Every character percent-encoded or not, at random: what a server decoding `file:` URIs would read. */
function percentSome(text: string, mask: readonly boolean[]): string {
  return Array.from(text)
    .map((char, i) => (mask[i % mask.length] && /[A-Za-z0-9_-]/.test(char) ? `%${char.charCodeAt(0).toString(16)}` : char))
    .join('');
}

describe('the rewriting law, whatever the key', () => {
  it('a path inside the project, anywhere, comes out inside the sandbox and maps back to where it was', () => {
    fc.assert(
      fc.property(segments, placement, fc.constantFrom('host', 'sandbox', 'uri'), (parts, steps, spelling) => {
        const logical = parts.join('/');
        const value =
          spelling === 'host'
            ? `${host}/${logical}`
            : spelling === 'sandbox'
              ? `${sandbox}/${logical}`
              : pathToFileURL(`${host}/${logical}`).href;
        const args = place(value, steps);
        const out = pick(rewriter.rewriteArgs(args), steps);
        expect(typeof out).toBe('string');
        if (spelling === 'uri') {
          expect(out).toBe(pathToFileURL(`${sandbox}/${logical}`).href);
          // The URI form maps back to exactly what was given.
          expect(rewriter.rewriteResult(rewriter.rewriteArgs(args))).toEqual(args);
        } else {
          expect(out).toBe(`${sandbox}/${logical}`);
          expect(rewriter.toLogical(out as string)).toBe(logical);
          expect(rewriter.rewriteText(out as string)).toBe(logical);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a path outside the project, anywhere and in any spelling, is refused', () => {
    const spellings = fc.oneof(
      segments.map((parts) => `${outside}/${parts.join('/')}`),
      segments.map((parts) => `/etc/${parts.join('/')}`),
      segments.map((parts) => pathToFileURL(`${outside}/${parts.join('/')}`).href),
      fc
        .tuple(segments, fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }))
        .map(([parts, mask]) => `file://${percentSome(`${outside}/${parts.join('/')}`, mask)}`),
      segments.map((parts) => `FILE://localhost${outside}/${parts.join('/')}`),
      fc.tuple(fc.integer({ min: 1, max: 6 }), segments).map(([up, parts]) => `${'../'.repeat(up)}${parts.join('/')}`),
      segments.map((parts) => `src/../../${parts.join('/')}`),
      segments.map((parts) => `..\\..\\${parts.join('\\')}`),
      segments.map((parts) => `~/${parts.join('/')}`),
      segments.map((parts) => `C:\\${parts.join('\\')}`),
      segments.map((parts) => `\\\\server\\${parts.join('\\')}`),
      segments.map((parts) => `${host}/../outside/${parts.join('/')}`),
    );
    fc.assert(
      fc.property(spellings, placement, (value, steps) => {
        let thrown: unknown;
        try {
          rewriter.rewriteArgs(place(value, steps));
        } catch (error) {
          thrown = error;
        }
        expect(isSandboxPathError(thrown), `${JSON.stringify(value)} at ${JSON.stringify(steps)} was not refused`).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('a result never names the sandbox root, whatever case, separators or encoding it comes in', () => {
    const spell = fc.constantFrom<(text: string) => string>(
      (t) => t,
      (t) => t.toUpperCase(),
      (t) => t.replaceAll('/', '\\'),
      (t) => t.replaceAll('/', '\\\\'),
      (t) => t.replaceAll('/', '\\/'),
      (t) => encodeURIComponent(t),
      (t) => encodeURIComponent(encodeURIComponent(t)),
      (t) => JSON.stringify(t).slice(1, -1).replaceAll('/', '\\u002f'),
    );
    fc.assert(
      fc.property(spell, fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), segments, (form, before, after, parts) => {
        const said = `${before}${form(`${sandbox}/${parts.join('/')}`)}${after}`;
        const once = rewriter.rewriteText(said);
        const lower = once.toLowerCase();
        for (const spelling of [sandbox, sandbox.replaceAll('/', '\\'), encodeURIComponent(sandbox)])
          expect(lower).not.toContain(spelling.toLowerCase());
        expect(rewriter.rewriteText(once)).toBe(once);
      }),
      { numRuns: 300 },
    );
  });
});
