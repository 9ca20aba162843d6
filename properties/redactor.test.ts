/** Laws of the redactor: nothing secret survives, redaction is idempotent, secret-free text is untouched. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MIN_EMBEDDED_SECRET_LENGTH, REDACTED, Redactor } from '../src/redaction/redactor.js';

const secret = fc
  .string({ minLength: MIN_EMBEDDED_SECRET_LENGTH, maxLength: 24, unit: 'grapheme' })
  .filter((s) => !REDACTED.includes(s) && !s.includes('[redacted'));
const text = fc.string({ maxLength: 40 });

describe('redactor laws', () => {
  it('no secret is left in any string of redacted data, and redacting twice changes nothing', () => {
    fc.assert(
      fc.property(
        fc.array(secret, { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(text, fc.nat(3), text), { maxLength: 6 }),
        (secrets, parts) => {
          // Keys are redacted too (matching ignores case): a secret inside this test's own keys would hide them.
          fc.pre(secrets.every((s) => !['strings', 'nested', 'list'].some((key) => key.includes(s.toLowerCase()))));
          const redactor = new Redactor();
          for (const s of secrets) redactor.addSecret(s);
          const strings = parts.map(([before, which, after]) => `${before}${secrets[which % secrets.length]}${after}`);
          const redacted = redactor.redact({ strings, nested: { list: strings } });
          const bytes = JSON.stringify(redacted);
          for (const s of secrets) expect(redacted.strings.some((x) => x.includes(s))).toBe(false);
          for (const s of secrets) expect(redacted.nested.list.some((x) => x.includes(s))).toBe(false);
          expect(JSON.stringify(redactor.redact(redacted))).toBe(bytes);
        },
      ),
    );
  });

  it('text that holds no secret comes back unchanged', () => {
    fc.assert(
      fc.property(fc.array(secret, { minLength: 1, maxLength: 4 }), text, (secrets, plain) => {
        fc.pre(secrets.every((s) => !plain.includes(s)));
        const redactor = new Redactor();
        for (const s of secrets) redactor.addSecret(s);
        expect(redactor.redactText(plain)).toBe(plain);
      }),
    );
  });
});
