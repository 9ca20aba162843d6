/**
 * The transport swap of ADR-004-F: the same `DomainServer` that runs in-process served as a real
 * MCP server (the SDK's low-level `Server`, which takes JSON Schema) over stdio or any transport.
 * `tools/call` runs exactly the in-process steps; only where the tenant comes from differs — here
 * the request's `_meta`, which the runtime fills from the session.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode as McpErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../registry/tool-descriptor.js';
import type { DomainServer } from './define-server.js';
import { isPlainObject } from './define-tool.js';
import { callDomainTool, failure, prepareDomainTools, tenantSettings, type PreparedDomainTool } from './in-process-server.js';
import { categoryAnnotations } from './tool-category.js';

export interface ServeOptions {
  /** The `_meta` key that holds the tenant besides `_meta.tenant`, and the context key; default `'org_id'`. */
  readonly tenantKey?: string;
  /** Argument names refused in any case; default `org_id`, `tenant`, `tenant_id`, plus `tenantKey`. */
  readonly tenantArgumentNames?: readonly string[];
  /** Default: a `StdioServerTransport` on this process's stdin and stdout. */
  readonly transport?: Transport;
}

export interface ServedDomainServer {
  /** Closes the connection; calling it again does nothing more. */
  close(): Promise<void>;
}

/**
 * Serves `server` as an MCP server. `tools/list` announces each tool's category in its
 * annotations and in `_meta: { category, domain }`; `tools/call` takes the tenant from
 * `_meta.tenant` (or `_meta[tenantKey]`) and refuses a call without one. Resolves once connected.
 * Over stdio, the end of stdin closes the server (the MCP stdio convention).
 *
 * @example
 * // roster-server.mjs, spawned by the runtime when the roster domain is extracted
 * import { serveOverStdio } from 'mcp-actors';
 * import { roster } from './roster.js';
 * await serveOverStdio(roster);
 */
export async function serveOverStdio(server: DomainServer, options: ServeOptions = {}): Promise<ServedDomainServer> {
  const { tenantKey, tenantNames } = tenantSettings(options);
  const prepared = prepareDomainTools(server, tenantKey, tenantNames);
  const byName = new Map(prepared.map((tool) => [tool.tool.name, tool] as const));
  const listing = prepared.map(toolListing);

  const mcp = new Server({ name: server.name, version: server.version ?? '0.0.0' }, { capabilities: { tools: {} } });
  mcp.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));
  mcp.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args, _meta } = request.params;
    const tool = byName.get(name);
    if (tool === undefined) throw new McpError(McpErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const meta: Readonly<Record<string, unknown>> = _meta ?? {};
    const tenant = tenantOf(meta, tenantKey);
    if (!tenant.ok) return toCallToolResult(failure(performance.now(), 'VALIDATION', `call "${tool.label}" refused: ${tenant.problem}`));
    const actor = typeof meta.actor === 'string' ? meta.actor : undefined;
    const callId = typeof meta.callId === 'string' ? meta.callId : undefined;
    return toCallToolResult(await callDomainTool(tool, args ?? {}, tenant.tenant, actor, callId, { signal: extra.signal }));
  });

  const transport = options.transport ?? new StdioServerTransport();
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      if (options.transport === undefined) process.stdin.off('end', onStdinEnd);
      await mcp.close();
    })();
    return closing;
  };
  const onStdinEnd = (): void => void close();
  if (options.transport === undefined) process.stdin.once('end', onStdinEnd);
  await mcp.connect(transport);
  return { close };
}

/**
 * A `ToolResult` as the MCP answer to `tools/call`: success gives the text content and the
 * structured content; failure gives `isError` with the message as text and the error code (and
 * violations) in `_meta`, so a client can tell VALIDATION from SERVER_ERROR.
 */
export function toCallToolResult(result: ToolResult): CallToolResult {
  const content = result.content as CallToolResult['content'];
  if (result.success) return isPlainObject(result.data) ? { content, structuredContent: result.data } : { content };
  return {
    isError: true,
    content: [{ type: 'text', text: result.error ?? 'the tool failed' }],
    _meta: { errorCode: result.errorCode, ...(result.violations === undefined ? {} : { violations: result.violations }) },
  };
}

function toolListing(prepared: PreparedDomainTool): Tool {
  const { tool } = prepared;
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.input as Tool['inputSchema'],
    ...(tool.output === undefined ? {} : { outputSchema: tool.output as NonNullable<Tool['outputSchema']> }),
    annotations: { ...categoryAnnotations(tool.category) },
    _meta: { category: tool.category, domain: tool.domain },
  };
}

function tenantOf(meta: Readonly<Record<string, unknown>>, tenantKey: string): { ok: true; tenant: string } | { ok: false; problem: string } {
  const byName = meta.tenant;
  const byKey = meta[tenantKey];
  if (byName === undefined && byKey === undefined) {
    return { ok: false, problem: `no tenant in _meta; the runtime sends it (as _meta.tenant or _meta.${tenantKey}), the tool never takes it from arguments` };
  }
  if (byName !== undefined && byKey !== undefined && byName !== byKey) {
    return { ok: false, problem: `conflicting tenants in _meta (tenant ${JSON.stringify(byName)}, ${tenantKey} ${JSON.stringify(byKey)})` };
  }
  const tenant = byName ?? byKey;
  if (typeof tenant !== 'string' || tenant === '') {
    return { ok: false, problem: `the tenant in _meta must be a non-empty string, not ${JSON.stringify(tenant)}` };
  }
  return { ok: true, tenant };
}
