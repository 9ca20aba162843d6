/**
 * The four tool categories of ADR-004-F (AW-12) — `read`, `propose`, `execute`, `restricted` — and
 * how they map to the registry's capabilities and to MCP tool annotations.
 *
 * A domain tool states its category; an MCP tool from elsewhere gets one from its inferred
 * capabilities (`read` when read-only, `execute` when it writes). `restricted` is never inferred:
 * only a person can say a tool needs the strictest handling.
 */
import type {
  CapabilityOverrides,
  CapabilityProvenance,
  CapabilitySource,
  ToolAnnotations,
  ToolCapability,
} from '../registry/capabilities.js';

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

/** A tool's category and the reason for it, in words an operator can act on. */
export interface CategoryDecision {
  readonly category: ToolCategory;
  readonly because: string;
}

/**
 * What a category is decided from: a `ToolDescriptor` fits, and so do bare capabilities
 * (`{ capabilities }`) of a tool known only by them.
 */
export interface CategorizedTool {
  readonly capabilities: ToolCapability;
  /** Why the capabilities say it writes (a descriptor's `provenance`); only for the reason. */
  readonly provenance?: Pick<CapabilityProvenance, 'writes'>;
  /** `category` here is a category the tool declares (a domain tool's). */
  readonly sourceMetadata?: Readonly<Record<string, unknown>>;
}

/** How each capability source reads in a sentence. */
export const SOURCE_WORDS: { readonly [S in CapabilitySource]: string } = {
  override: 'config override',
  annotation: "the server's annotations",
  name: 'its name',
  default: 'no hint: unknown tools count as writing',
};

/**
 * The one place a tool's category is decided: the category it declares (a domain tool), else
 * `read` when its capabilities say read-only and `execute` when it writes. `propose` and
 * `restricted` are never inferred: only a declaration says them.
 *
 * @example
 * toolCategory(descriptor);                // { category: 'execute', because: 'its name: word "write" in name' }
 * toolCategory({ capabilities }).category; // 'read' or 'execute'
 */
export function toolCategory(tool: CategorizedTool): CategoryDecision {
  const declared = tool.sourceMetadata?.category;
  if (isToolCategory(declared)) return { category: declared, because: `the tool declares category "${declared}"` };
  const { readOnly, writes } = tool.capabilities;
  const category = readOnly && !writes ? 'read' : 'execute';
  const origin = tool.provenance?.writes;
  return {
    category,
    because:
      origin === undefined
        ? `its capabilities: ${category === 'read' ? 'read-only' : 'writes'}`
        : `${SOURCE_WORDS[origin.source]}: ${origin.detail}`,
  };
}
