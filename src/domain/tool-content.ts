/**
 * What a domain tool may return besides a plain JSON object: MCP content blocks (text, image,
 * audio, an embedded resource, a resource link, or several of them), optionally with structured
 * content beside them. `toolContent(...)` marks such a result, so that a domain object which
 * happens to have a `content` field is never mistaken for one.
 */
import { ContentBlockSchema, type ContentBlock } from '@modelcontextprotocol/sdk/types.js';

// Symbol.for: the brand still matches when two copies of the package are loaded.
const TOOL_CONTENT = Symbol.for('mcp-actors.toolContent');

/** A tool's answer as MCP content; make it with `toolContent`. */
export interface ToolContent {
  readonly [TOOL_CONTENT]: true;
  readonly content: readonly ContentBlock[];
  /** Structured content beside the blocks; checked against the tool's output schema. */
  readonly structuredContent?: Readonly<Record<string, unknown>>;
}

/**
 * Marks MCP content as a tool's answer. Blocks are checked when the tool returns them: a block
 * MCP does not know fails the call with OUTPUT_VALIDATION.
 *
 * @example
 * call: () => toolContent([
 *   { type: 'text', text: 'The roster as a chart:' },
 *   { type: 'image', data: pngBase64, mimeType: 'image/png' },
 *   { type: 'resource_link', uri: 'roster://week/19', name: 'week 19' },
 * ]),
 */
export function toolContent(
  blocks: ContentBlock | readonly ContentBlock[],
  options: { readonly structuredContent?: Readonly<Record<string, unknown>> } = {},
): ToolContent {
  const content = Object.freeze(Array.isArray(blocks) ? [...(blocks as readonly ContentBlock[])] : [blocks as ContentBlock]);
  return Object.freeze({
    [TOOL_CONTENT]: true as const,
    content,
    ...(options.structuredContent === undefined ? {} : { structuredContent: options.structuredContent }),
  });
}

export function isToolContent(value: unknown): value is ToolContent {
  return typeof value === 'object' && value !== null && (value as { [TOOL_CONTENT]?: unknown })[TOOL_CONTENT] === true;
}

/** The first problem with the blocks, or undefined when MCP accepts every one. */
export function contentProblem(blocks: readonly unknown[]): string | undefined {
  for (let index = 0; index < blocks.length; index++) {
    const parsed = ContentBlockSchema.safeParse(blocks[index]);
    if (!parsed.success) {
      const type = (blocks[index] as { type?: unknown } | null)?.type;
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
      return `content[${index}]${type === undefined ? '' : ` (type ${JSON.stringify(type)})`} is not an MCP content block${where}: ${issue?.message ?? 'invalid'}`;
    }
  }
  return undefined;
}
