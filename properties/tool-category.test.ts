/**
 * One function says what category a tool is (`toolCategory`). It replaced three that each
 * covered a case: `categoryOf(descriptor)` (runtime permissions), `categoryOfCapability(capability,
 * override)` (domain servers) and `toolCategoryOf(capability)` (capability inference). The old
 * rules are written out here as oracles; `toolCategory` must agree with each on its cases.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TOOL_CATEGORIES, isToolCategory, toolCategory, type ToolCategory } from '../src/domain/tool-category.js';
import { inferCapabilities, type ToolCapability } from '../src/registry/capabilities.js';

// The old rules, as they were.
const oldToolCategoryOf = (capability: ToolCapability): 'read' | 'execute' =>
  capability.readOnly && !capability.writes ? 'read' : 'execute';
const oldCategoryOfCapability = (capability: ToolCapability, override?: ToolCategory): ToolCategory =>
  override ?? oldToolCategoryOf(capability);
const oldCategoryOf = (declared: unknown, capability: ToolCapability): ToolCategory =>
  isToolCategory(declared) ? declared : oldToolCategoryOf(capability);

// Any five booleans, consistent or not (a hand-built descriptor need not be).
const capability: fc.Arbitrary<ToolCapability> = fc.record({
  readOnly: fc.boolean(),
  writes: fc.boolean(),
  destructive: fc.boolean(),
  idempotent: fc.boolean(),
  openWorld: fc.boolean(),
});
const category = fc.constantFrom(...TOOL_CATEGORIES);
// What a descriptor's sourceMetadata.category may hold: a category, nothing, or junk.
const declared = fc.oneof(category, fc.constant(undefined), fc.string({ maxLength: 12 }), fc.integer(), fc.constant(null));

describe('toolCategory, the one category function', () => {
  it('agrees with toolCategoryOf on bare capabilities, inferred or not', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          capability,
          fc.string({ maxLength: 24 }).map((toolName) => inferCapabilities({ toolName }).capability),
        ),
        (capabilities) => {
          expect(toolCategory({ capabilities }).category).toBe(oldToolCategoryOf(capabilities));
        },
      ),
    );
  });

  it('agrees with categoryOfCapability, a declared category winning', () => {
    fc.assert(
      fc.property(capability, fc.option(category, { nil: undefined }), (capabilities, override) => {
        expect(toolCategory({ capabilities, sourceMetadata: { category: override } }).category).toBe(
          oldCategoryOfCapability(capabilities, override),
        );
      }),
    );
  });

  it('agrees with categoryOf on descriptors, junk declarations ignored, and always gives a reason', () => {
    fc.assert(
      fc.property(capability, declared, fc.string({ maxLength: 16 }), (capabilities, category, toolName) => {
        const { provenance } = inferCapabilities({ toolName });
        const decision = toolCategory({ capabilities, provenance, sourceMetadata: { server: 's', category } });
        expect(decision.category).toBe(oldCategoryOf(category, capabilities));
        expect(decision.because).not.toBe('');
      }),
    );
  });
});
