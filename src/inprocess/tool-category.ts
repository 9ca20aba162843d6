/**
 * The four tool categories of ADR-004-F (AW-12) — `read`, `propose`, `execute`, `restricted` — and
 * how they map to the registry's capabilities and to MCP tool annotations.
 *
 * A domain tool states its category; an MCP tool from elsewhere gets one from its inferred
 * capabilities (`read` when read-only, `execute` when it writes). `restricted` is never inferred:
 * only a person can say a tool needs the strictest handling.
 */
import { toolCategoryOf, type CapabilityOverrides, type ToolAnnotations, type ToolCapability } from '../registry/capabilities.js';

export const TOOL_CATEGORIES = ['read', 'propose', 'execute', 'restricted'] as const;
export type ToolCategory = (typeof TOOL_CATEGORIES)[number];

export function isToolCategory(value: unknown): value is ToolCategory {
  return typeof value === 'string' && (TOOL_CATEGORIES as readonly string[]).includes(value);
}

// `propose` writes (it records a proposal) but destroys nothing: the change itself happens only
// when someone approves the proposal through an `execute` tool. `execute` says only that the tool
// writes; whether it is destructive is left to the inference (destructive by default, as MCP's
// destructiveHint defaults to true).
const CATEGORY_CAPABILITIES: { readonly [C in ToolCategory]: CapabilityOverrides } = {
  read: Object.freeze({ readOnly: true }),
  propose: Object.freeze({ writes: true, destructive: false }),
  execute: Object.freeze({ writes: true }),
  restricted: Object.freeze({ writes: true, destructive: true }),
};

const CATEGORY_ANNOTATIONS: { readonly [C in ToolCategory]: ToolAnnotations } = {
  read: Object.freeze({ readOnlyHint: true }),
  propose: Object.freeze({ readOnlyHint: false, destructiveHint: false }),
  execute: Object.freeze({ readOnlyHint: false }),
  restricted: Object.freeze({ readOnlyHint: false, destructiveHint: true }),
};

/**
 * The capability override block a category stands for; feed it to `inferCapabilities` as the
 * strongest override.
 *
 * @example
 * categoryCapabilities('propose'); // { writes: true, destructive: false }
 */
export function categoryCapabilities(category: ToolCategory): CapabilityOverrides {
  return CATEGORY_CAPABILITIES[category];
}

/**
 * The MCP annotations a category is announced with in `tools/list`, so a client that knows
 * nothing of categories still reads the right hints.
 *
 * @example
 * categoryAnnotations('restricted'); // { readOnlyHint: false, destructiveHint: true }
 */
export function categoryAnnotations(category: ToolCategory): ToolAnnotations {
  return CATEGORY_ANNOTATIONS[category];
}

/**
 * The category of a tool known only by its capabilities (an MCP tool): `read` when it is
 * read-only, `execute` when it writes. `propose` and `restricted` come only from `override`.
 *
 * @example
 * categoryOfCapability(descriptor.capabilities);               // 'read' or 'execute'
 * categoryOfCapability(descriptor.capabilities, 'restricted'); // 'restricted'
 */
export function categoryOfCapability(capability: ToolCapability, override?: ToolCategory): ToolCategory {
  return override ?? toolCategoryOf(capability);
}
