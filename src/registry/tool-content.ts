/**
 * The content of a tool's answer: MCP's content blocks (spec 2025-06-18 and later) — text, image,
 * audio, a resource link, an embedded resource — as one union to narrow on `type`. Defined here
 * rather than taken from the SDK so that the public `ToolResult` does not change with the SDK's
 * version; a type test keeps the SDK's `ContentBlock` assignable to it.
 */

/** Hints for whoever shows a block: for whom it is, how much it matters, when it last changed. */
export interface ContentAnnotations {
  readonly audience?: readonly ('user' | 'assistant')[];
  /** 0 (least) to 1 (most important). */
  readonly priority?: number;
  /** ISO 8601. */
  readonly lastModified?: string;
}

// Open like MCP's own objects (a server may send fields a later spec adds): narrowing on `type`
// still gives each block's declared fields their types.
interface BlockBase {
  readonly [field: string]: unknown;
  readonly annotations?: ContentAnnotations;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

export interface TextContentBlock extends BlockBase {
  readonly type: 'text';
  readonly text: string;
}

export interface ImageContentBlock extends BlockBase {
  readonly type: 'image';
  /** Base64. */
  readonly data: string;
  readonly mimeType: string;
}

export interface AudioContentBlock extends BlockBase {
  readonly type: 'audio';
  /** Base64. */
  readonly data: string;
  readonly mimeType: string;
}

/** A resource the client may read (`resources/read`); not included in the answer. */
export interface ResourceLinkBlock extends BlockBase {
  readonly type: 'resource_link';
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly size?: number;
}

export interface TextResourceContents {
  readonly uri: string;
  readonly mimeType?: string;
  readonly text: string;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

export interface BlobResourceContents {
  readonly uri: string;
  readonly mimeType?: string;
  /** Base64. */
  readonly blob: string;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** A resource included in the answer, as text or as a base64 blob. */
export interface EmbeddedResourceBlock extends BlockBase {
  readonly type: 'resource';
  readonly resource: TextResourceContents | BlobResourceContents;
}

/**
 * One block of a tool's answer; narrow on `type`.
 *
 * @example
 * for (const block of outcome.result?.content ?? []) if (block.type === 'text') console.log(block.text);
 */
export type ToolContentBlock = TextContentBlock | ImageContentBlock | AudioContentBlock | ResourceLinkBlock | EmbeddedResourceBlock;
