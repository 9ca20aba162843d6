/**
 * Laws of the redactor against encoded secrets: a secret embedded in random text in a common
 * encoding — another case, base64 at any byte offset inside a longer base64 text (standard and
 * url-safe), URL encoding, JSON escaping once or twice, one line of a PEM key — does not survive
 * redaction, and text that holds no secret in any of these forms comes back unchanged.
 *
 * The encoders here are written independently of the redactor's: what counts as "the secret in
 * base64" is every character whose six bits come from the secret's bytes alone.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../src/redaction/redactor.js';

/** Secrets of 8 units or more (base64 inside longer text needs 8 bytes to leave a core), without `[`/`]`. */
const unitChars = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.string({
      unit: fc.constantFrom(...Array.from('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~+/=:@%&?#')),
      minLength: 8,
      maxLength: 40,
    }),
  },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 8, maxLength: 40 }) },
  {
    weight: 2,
    arbitrary: fc.string({
      unit: fc.constantFrom('é', 'Ü', 'ß', '日', '本', '😀', ' ', '"', '\\', '\n', '\t', 'k', 'Z'),
      minLength: 8,
      maxLength: 24,
    }),
  },
);
const secret = unitChars.filter((s) => !/[[\]]/.test(s) && s.trim().length >= 4);
const text = fc.string({ maxLength: 30 });

type Encoding = { readonly name: string; readonly encode: (secret: string) => { embedded: string; mustNotSurvive: string[] } };

const hex = (byte: number, upper: boolean): string => (upper ? byte.toString(16).toUpperCase() : byte.toString(16)).padStart(2, '0');
const json = (value: string): string => JSON.stringify(value).slice(1, -1);
/** encodeURIComponent, or nothing for text it refuses (a lone surrogate). */
const component = (value: string): string[] => {
  try {
    return [encodeURIComponent(value)];
  } catch {
    return [];
  }
};
/** Toggles the case of the units chosen by `flips` (only where the other case is one unit too). */
const recase = (value: string, flips: readonly boolean[]): string =>
  Array.from(value)
    .map((c, i) => {
      if (!flips[i % flips.length]) return c;
      const other = c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase();
      return other.length === c.length ? other : c;
    })
    .join('');

/** The characters of `encoded` (base64 of prefix + secret + suffix) that carry only the secret's bits. */
function secretOnlyRun(encoded: string, prefixBytes: number, secretBytes: number): string {
  const from = Math.ceil((prefixBytes * 8) / 6);
  const to = Math.floor(((prefixBytes + secretBytes) * 8) / 6); // exclusive
  return encoded.slice(from, to);
}

const encodings = (flips: boolean[], prefix: Uint8Array, suffix: Uint8Array, upperHex: boolean): Encoding[] => [
  { name: 'as is', encode: (s) => ({ embedded: s, mustNotSurvive: [s] }) },
  { name: 'upper case', encode: (s) => ({ embedded: s.toUpperCase(), mustNotSurvive: [s.toUpperCase()] }) },
  { name: 'lower case', encode: (s) => ({ embedded: s.toLowerCase(), mustNotSurvive: [s.toLowerCase()] }) },
  { name: 'mixed case', encode: (s) => ({ embedded: recase(s, flips), mustNotSurvive: [recase(s, flips)] }) },
  {
    name: 'base64 inside longer base64',
    encode: (s) => {
      const bytes = Buffer.from(s, 'utf8');
      const encoded = Buffer.concat([prefix, bytes, suffix]).toString('base64');
      return { embedded: encoded, mustNotSurvive: [secretOnlyRun(encoded, prefix.length, bytes.length)] };
    },
  },
  {
    name: 'url-safe base64 inside longer base64',
    encode: (s) => {
      const bytes = Buffer.from(s, 'utf8');
      const encoded = Buffer.concat([prefix, bytes, suffix]).toString('base64url');
      return { embedded: encoded, mustNotSurvive: [secretOnlyRun(encoded, prefix.length, bytes.length)] };
    },
  },
  {
    name: 'URL component',
    encode: (s) => {
      const encoded = component(s)[0] ?? s;
      return { embedded: `https://example.test/cb?token=${encoded}&x=1`, mustNotSurvive: [encoded] };
    },
  },
  {
    name: 'form encoding',
    encode: (s) => {
      const encoded = new URLSearchParams({ t: s }).toString().slice(2);
      return { embedded: `t=${encoded}`, mustNotSurvive: [encoded] };
    },
  },
  {
    name: 'every byte percent-encoded',
    encode: (s) => {
      const encoded = [...Buffer.from(s, 'utf8')].map((b) => `%${hex(b, upperHex)}`).join('');
      return { embedded: encoded, mustNotSurvive: [encoded] };
    },
  },
  { name: 'JSON string', encode: (s) => ({ embedded: JSON.stringify({ token: s }), mustNotSurvive: [json(s)] }) },
  {
    name: 'JSON string inside a JSON string',
    encode: (s) => ({ embedded: JSON.stringify({ body: JSON.stringify({ token: s }) }), mustNotSurvive: [json(json(s))] }),
  },
];

describe('redaction of encoded secrets', () => {
  it('no secret survives in any common encoding, embedded in random text', () => {
    fc.assert(
      fc.property(
        fc.array(secret, { minLength: 1, maxLength: 3 }),
        fc.nat(),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        fc.uint8Array({ maxLength: 5 }),
        fc.uint8Array({ maxLength: 5 }),
        fc.boolean(),
        text,
        text,
        (secrets, pick, flips, prefix, suffix, upperHex, before, after) => {
          const redactor = new Redactor();
          for (const s of secrets) redactor.addSecret(s);
          const s = secrets[pick % secrets.length]!;
          for (const encoding of encodings(flips, prefix, suffix, upperHex)) {
            const { embedded, mustNotSurvive } = encoding.encode(s);
            const out = redactor.redactText(`${before} ${embedded} ${after}`);
            for (const form of mustNotSurvive)
              expect(out.includes(form), `${encoding.name}: ${JSON.stringify(form)} in ${JSON.stringify(out)}`).toBe(false);
            expect(redactor.redactText(out)).toBe(out);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('no line of a PEM key survives, alone or in a stderr tail', () => {
    const b64line = fc.string({
      unit: fc.constantFrom(...Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')),
      minLength: 16,
      maxLength: 64,
    });
    fc.assert(
      fc.property(fc.array(b64line, { minLength: 2, maxLength: 8 }), fc.nat(), text, (lines, pick, noise) => {
        const pem = ['-----BEGIN PRIVATE KEY-----', ...lines, '-----END PRIVATE KEY-----'].join('\n');
        const redactor = new Redactor();
        redactor.addServerConfig({ env: { KEY: pem } });
        const line = lines[pick % lines.length]!;
        const tail = redactor.redact({ stderrTail: [noise, `error: bad key line ${line}`, '-----BEGIN PRIVATE KEY-----'] });
        expect(JSON.stringify(tail)).not.toContain(line);
        // Armor lines are not secret: they say what kind of thing failed.
        expect(tail.stderrTail[2]).toBe('-----BEGIN PRIVATE KEY-----');
      }),
      { numRuns: 100 },
    );
  });

  it('text holding no secret in any of these forms comes back unchanged', () => {
    fc.assert(
      fc.property(fc.array(secret, { minLength: 1, maxLength: 3 }), fc.string({ maxLength: 60 }), (secrets, plain) => {
        const lower = plain.toLowerCase();
        for (const s of secrets) {
          const bytes = Buffer.from(s, 'utf8');
          const folded = [s, json(s), json(json(s)), new URLSearchParams({ t: s }).toString().slice(2), ...component(s)];
          fc.pre(folded.every((form) => !lower.includes(form.toLowerCase())));
          for (let offset = 0; offset < 3; offset += 1) {
            const pad = Buffer.alloc(offset);
            for (const encoded of [Buffer.concat([pad, bytes]).toString('base64'), Buffer.concat([pad, bytes]).toString('base64url')]) {
              fc.pre(!plain.includes(secretOnlyRun(encoded, offset, bytes.length)));
            }
          }
        }
        const redactor = new Redactor();
        for (const s of secrets) redactor.addSecret(s);
        expect(redactor.redactText(plain)).toBe(plain);
        expect(redactor.redact({ plain })).toEqual({ plain });
      }),
      { numRuns: 200 },
    );
  });
});
