/**
 * `ToolDescriptor`: one tool as the registry records it, whatever its source. MCP tools always
 * carry `source: 'mcp'`, `sourceMetadata.server` and `checkpointable: false` — an external side
 * effect cannot be undone transactionally.
 */
import { ErrorCode } from '../errors/codes.js';
import type { McpActorsError } from '../errors/mcp-actors-error.js';
import type { CapabilityProvenance, InferenceInput, ToolAnnotations, ToolCapability } from './capabilities.js';
import type { JsonSchema } from './json-schema-validators.js';
import type { ToolContentBlock } from './tool-content.js';
import type { CallSignal } from './call-signal.js';

export const TOOL_SOURCES = ['mcp', 'builtin', 'custom', 'agent-skill'] as const;
export type ToolSource = (typeof TOOL_SOURCES)[number];

export interface ToolDescriptor {
  /** `<namespace>/<tool>`, unique in a registry. */
  readonly name: string;
  readonly namespace: string;
  /** The tool's own name at its source (what an MCP server calls it). */
  readonly toolName: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema | undefined;
  readonly annotations: ToolAnnotations | undefined;
  readonly source: ToolSource;
  readonly sourceMetadata: Readonly<{ server?: string } & Record<string, unknown>>;
  readonly capabilities: ToolCapability;
  /** Why each capability is what it is (override, annotation, name, default). */
  readonly provenance: CapabilityProvenance;
  /** Whether a rollback undoes everything the tool did (false for every MCP tool). */
  readonly checkpointable: boolean;
  /** Set when the tool cannot be used, e.g. its input schema does not compile. */
  readonly unusable?: string | undefined;
  /** What the capabilities were inferred from, so a skill can add its own overrides on top. */
  readonly inference?: InferenceInput | undefined;
}

/** The result every tool invocation gives, whatever its source; never thrown for a tool-level failure. */
export interface ToolResult {
  readonly success: boolean;
  /** The MCP content blocks (text, image, audio, resource_link, resource): narrow on `type`. */
  readonly content: readonly ToolContentBlock[];
  /** The structured content, when the tool gives one. */
  readonly data: unknown;
  /** The failure's message (the same as `failure.message`). */
  readonly error: string | undefined;
  /** The failure's finer kind (the same as `failure.details.kind`). */
  readonly errorCode: ToolErrorCode | undefined;
  /**
   * The failure as an error of the family, set on every failure the runtime builds (a handler of
   * your own may leave it out): `code` is an `ErrorCode`, `details.kind` the finer kind,
   * `details.mcpCode` the server's JSON-RPC code when it answered with an error, and `cause` what
   * it came from (the SDK's `McpError`, or what the tool threw).
   */
  readonly failure?: McpActorsError | undefined;
  /** ajv error paths for VALIDATION and OUTPUT_VALIDATION. */
  readonly violations?: readonly { readonly path: string; readonly message: string }[];
  readonly durationMs: number;
}

/**
 * Why a tool invocation failed: the finer kind a failure's `McpActorsError` carries in
 * `details.kind` (and a `ToolResult` in `errorCode`). Internal: the package exports `ErrorCode`
 * only, the one public vocabulary. Where a kind is also a code of the family it is spelled the same
 * (`NOT_FOUND`, `REQUEST_TIMEOUT`, `CANCELLED`, `CONNECTION_LOST`); the public code of each kind
 * is in `tool-call/tool-failure.ts`.
 */
export const ToolErrorCode = {
  NOT_FOUND: ErrorCode.NOT_FOUND,
  VALIDATION: 'VALIDATION',
  REQUEST_TIMEOUT: ErrorCode.REQUEST_TIMEOUT,
  CANCELLED: ErrorCode.CANCELLED,
  SERVER_ERROR: 'SERVER_ERROR',
  CONNECTION_LOST: ErrorCode.CONNECTION_LOST,
  OUTPUT_VALIDATION: 'OUTPUT_VALIDATION',
  /** A served domain server refused the call by its category rules (restricted without scope, execute policy). */
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  /** The call named a tenant other than the one its session or process serves. */
  TENANT_MISMATCH: 'TENANT_MISMATCH',
  /** An argument named the tenant; the tenant comes from the session, never from arguments. */
  TENANT_ARGUMENT: ErrorCode.TENANT_ARGUMENT,
} as const;
export type ToolErrorCode = (typeof ToolErrorCode)[keyof typeof ToolErrorCode];

/**
 * Set by the call path on the options of a handler it runs, to the input schema it has already
 * validated the arguments against, so a handler that would validate against the same schema
 * need not do it twice. Internal: not exported from the package.
 */
export const VALIDATED_AGAINST: unique symbol = Symbol('mcp-actors.validatedAgainst');

/**
 * Set by the call path beside `signal`: the call's signal as a `CallSignal`, whose `aborted` and
 * `onAbort` cost no `AbortController` (reading `signal` makes one). Internal: not exported.
 */
export const CALL_SIGNAL: unique symbol = Symbol('mcp-actors.callSignal');

/**
 * Set (to `true`) on a handler that enforces `options.timeoutMs` and the call's cancel itself,
 * answering with a REQUEST_TIMEOUT or CANCELLED result (the in-process handlers): the call path
 * then arms no timer of its own for it. Internal: not exported.
 */
export const KEEPS_OWN_DEADLINE: unique symbol = Symbol('mcp-actors.keepsOwnDeadline');

export interface InvokeOptions {
  readonly [VALIDATED_AGAINST]?: JsonSchema;
  readonly [CALL_SIGNAL]?: CallSignal;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** `_meta` sent with the call (e.g. the tenant id). */
  readonly meta?: Readonly<Record<string, unknown>>;
  /** Whose call it is (the runtime's actor and tenant), for questions the server asks back. */
  readonly context?: { readonly actor?: string | undefined; readonly tenant?: string | undefined };
}

/** How a registered tool is run. */
export type ToolHandler = (args: Record<string, unknown>, options: InvokeOptions) => Promise<ToolResult>;
