import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { READ_WORDS, WRITE_WORDS } from '../src/registry/capability-words.js';
import {
  inferCapabilities,
  overrideProblems,
  type CapabilityOverrides,
  type InferenceInput,
  type ToolAnnotations,
  type ToolCapability,
} from '../src/registry/capabilities.js';

const otherWord = fc.stringMatching(/^[a-z]{2,8}$/);
const word = fc.oneof(fc.constantFrom(...READ_WORDS), fc.constantFrom(...WRITE_WORDS), otherWord);
const words = fc.array(word, { minLength: 1, maxLength: 5 });
const separator = fc.constantFrom('_', '-', '.', '/', ' ', '__', '0');

/** Any tool name, including ones with junk characters, digits and mixed case. */
const toolName = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.tuple(words, separator).map(([ws, sep]) => ws.join(sep)),
  words.map(camelCase),
);

const maybeBool = fc.option(fc.boolean(), { nil: undefined });
const annotations: fc.Arbitrary<ToolAnnotations> = fc.record(
  { readOnlyHint: fc.boolean(), destructiveHint: fc.boolean(), idempotentHint: fc.boolean(), openWorldHint: fc.boolean() },
  { requiredKeys: [] },
);
const overrideValues: fc.Arbitrary<CapabilityOverrides> = fc
  .record(
    { readOnly: fc.boolean(), writes: fc.boolean(), destructive: fc.boolean(), idempotent: fc.boolean(), openWorld: fc.boolean() },
    { requiredKeys: [] },
  )
  .filter((values) => overrideProblems(values, 'x').length === 0);
const overrideBlocks = fc.array(fc.record({ at: fc.constantFrom('tools.t.overrides', 'skills.s.tools.t'), values: overrideValues }), {
  maxLength: 3,
});
const input: fc.Arbitrary<InferenceInput> = fc.record({
  toolName,
  annotations: fc.option(annotations, { nil: undefined }),
  trusted: maybeBool,
  overrides: overrideBlocks,
});

function camelCase(ws: readonly string[]): string {
  return ws.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('');
}

function caseOf(w: string, style: 'lower' | 'upper' | 'title'): string {
  if (style === 'upper') return w.toUpperCase();
  if (style === 'title') return w.charAt(0).toUpperCase() + w.slice(1);
  return w;
}

const rank = (value: boolean): number => (value ? 1 : 0);

describe('capability inference', () => {
  // Only a trusted server's annotations or an override rank above the name; an untrusted server's
  // readOnlyHint: true must not make a write word read-only either.
  it('never calls a name with a write word read-only, whatever words and untrusted hints surround it', () => {
    const around = fc.array(word, { maxLength: 4 });
    fc.assert(
      fc.property(around, fc.constantFrom(...WRITE_WORDS), around, separator, annotations, (before, writeWord, after, sep, hints) => {
        const name = [...before, writeWord, ...after].join(sep);
        const result = inferCapabilities({ toolName: name, annotations: hints, trusted: false });
        expect(result.capability.readOnly).toBe(false);
        expect(result.capability.writes).toBe(true);
      }),
    );
  });

  it('gives the same capability for the same words whatever the separators and case', () => {
    const style = fc.constantFrom('lower' as const, 'upper' as const, 'title' as const);
    fc.assert(
      fc.property(words, separator, fc.array(style, { minLength: 5, maxLength: 5 }), (ws, sep, styles) => {
        const expected = inferCapabilities({ toolName: ws.join('_') }).capability;
        const variants = [
          ws.join(sep),
          ws.join(sep).toUpperCase(),
          ws.map((w, i) => caseOf(w, styles[i] ?? 'lower')).join(sep),
          camelCase(ws),
          caseOf(camelCase(ws), 'title'),
        ];
        for (const name of variants) expect(inferCapabilities({ toolName: name }).capability).toEqual(expected);
      }),
    );
  });

  it('lets the last override of a field decide that field', () => {
    fc.assert(
      fc.property(input, overrideValues, (base, last) => {
        const { capability } = inferCapabilities({
          ...base,
          overrides: [...(base.overrides ?? []), { at: 'skills.last', values: last }],
        });
        if (last.readOnly !== undefined) expect(capability.readOnly).toBe(last.readOnly);
        if (last.writes !== undefined) expect(capability.writes).toBe(last.writes);
        if (last.destructive !== undefined) expect(capability.destructive).toBe(last.destructive);
        if (last.destructive === true) expect(capability.writes).toBe(true);
        if (last.idempotent !== undefined) expect(capability.idempotent).toBe(last.idempotent);
        if (last.openWorld !== undefined) expect(capability.openWorld).toBe(last.openWorld);
      }),
    );
  });

  // An untrusted readOnlyHint: true counts as much as a read word in the name (the same server
  // chose both) and no more; every other untrusted hint counts only when it is more careful.
  it('never lets untrusted annotations make a tool less careful than a read word in its name would', () => {
    fc.assert(
      fc.property(toolName, annotations, overrideBlocks, (name, hints, overrides) => {
        const plain = inferCapabilities({ toolName: hints.readOnlyHint === true ? `${name}_get` : name, overrides }).capability;
        const hinted = inferCapabilities({ toolName: name, annotations: hints, trusted: false, overrides }).capability;
        expect(rank(hinted.writes)).toBeGreaterThanOrEqual(rank(plain.writes));
        expect(rank(hinted.destructive)).toBeGreaterThanOrEqual(rank(plain.destructive));
        expect(rank(hinted.openWorld)).toBeGreaterThanOrEqual(rank(plain.openWorld));
        expect(rank(hinted.readOnly)).toBeLessThanOrEqual(rank(plain.readOnly));
        expect(rank(hinted.idempotent)).toBeLessThanOrEqual(rank(plain.idempotent));
      }),
    );
  });

  it('always gives a tool that is either read-only or writes, and never destructive without writing', () => {
    fc.assert(
      fc.property(input, (given) => {
        const { capability, provenance } = inferCapabilities(given);
        const consistent = (c: ToolCapability): boolean => c.readOnly === !c.writes && (!c.destructive || c.writes);
        expect(consistent(capability)).toBe(true);
        expect(provenance.readOnly).toEqual(provenance.writes);
        for (const entry of Object.values(provenance)) expect(entry.detail.length).toBeGreaterThan(0);
      }),
    );
  });
});
