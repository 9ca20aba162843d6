/**
 * One MCP server (the SDK's low-level `Server`, which takes JSON Schema) for one served session of
 * a domain server: `tools/list`, `tools/call` with the served rules (tenant and actor from the
 * session, never from the message; categories, audit), `logging/setLevel`, and a tool context that reaches the client (progress,
 * logs, elicitation, sampling). serveOverStdio makes one for the process; serveOverHttp one per
 * HTTP session.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ErrorCode as McpErrorCode,
  ListToolsRequestSchema,
  McpError,
  SetLevelRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '../errors/codes.js';
import type { ToolResult } from '../registry/tool-descriptor.js';
import type { DomainServer } from '../domain/define-server.js';
import { LOG_LEVELS, isPlainObject } from '../domain/define-tool.js';
import { callDomainTool, prepareDomainTools, type CallHooks, type PreparedDomainTool } from '../domain/in-process-server.js';
import { claimedTenant, tenancyOf } from '../tenancy/tenancy.js';
import { toolFailure } from '../tool-call/tool-failure.js';
import {
  decideAccess,
  type AuditOutcome,
  type ServedAuditRecord,
  type AuditSink,
  type ServePolicy,
  type ServedSession,
} from './served-access.js';
import { categoryAnnotations } from '../domain/tool-category.js';
import { traceServedCall } from '../telemetry/served-call-span.js';

/** The options both serve functions share. */
export interface ServeCommonOptions {
  /** The `_meta` key that may also name the tenant, and the context key; default `'org_id'`. */
  readonly tenantKey?: string;
  /** Argument names denied in any case; default `org_id`, `tenant`, `tenant_id`, plus `tenantKey`. */
  readonly tenantArgumentNames?: readonly string[];
  /** The category rules: `restricted` always needs `tool:<name>`; `execute` follows `policy.execute`. */
  readonly policy?: ServePolicy;
  /** Receives every call's audit record. */
  readonly onAudit?: AuditSink;
}

/** A domain server compiled once, for as many sessions as come. */
export interface ServableDomain {
  readonly server: DomainServer;
  readonly tenantKey: string;
  readonly byName: ReadonlyMap<string, PreparedDomainTool>;
  readonly listing: readonly Tool[];
}

export function servableDomain(server: DomainServer, options: ServeCommonOptions): ServableDomain {
  const tenancy = tenancyOf(options);
  const prepared = prepareDomainTools(server, tenancy);
  return {
    server,
    tenantKey: tenancy.tenantKey,
    byName: new Map(prepared.map((tool) => [tool.tool.name, tool] as const)),
    listing: Object.freeze(prepared.map(toolListing)),
  };
}

export interface SessionServerOptions {
  readonly session: ServedSession;
  readonly policy: ServePolicy;
  readonly audit: AuditSink;
  readonly transport: ServedAuditRecord['transport'];
  /** The HTTP session id, once there is one. */
  readonly sessionId?: () => string | undefined;
}

/** The longest tool name an error or audit record repeats in full. */
const MAX_NAME_ECHO = 128;

const SEVERITY: ReadonlyMap<string, number> = new Map(LOG_LEVELS.map((level, index) => [level, index]));

/**
 * The SDK's low-level `Server`, which the SDK keeps for advanced uses: ours answers tools/list and
 * tools/call by hand with JSON Schema tools (McpServer's registerTool takes zod schemas).
 */
// eslint-disable-next-line @typescript-eslint/no-deprecated -- the SDK keeps Server for advanced uses: JSON Schema tools answered by hand
export type SessionServer = Server;

/** A fresh SDK `Server` for one session; connect it to that session's transport. */
export function createSessionServer(domain: ServableDomain, options: SessionServerOptions): SessionServer {
  const { session, policy, audit } = options;
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- see SessionServer
  const mcp = new Server(
    { name: domain.server.name, version: domain.server.version ?? '0.0.0' },
    { capabilities: { tools: {}, logging: {} } },
  );
  // One level a session (the SDK keeps its own map too; this one also filters ctx.log).
  let minimum: number | undefined;
  mcp.setRequestHandler(SetLevelRequestSchema, (request) => {
    minimum = SEVERITY.get(request.params.level);
    return {};
  });
  mcp.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...domain.listing] }));
  // A SERVER span per call, the child of the client's span named in _meta (when the host has OpenTelemetry).
  const traced = { transport: options.transport, tenant: session.tenant, sessionId: options.sessionId };
  mcp.setRequestHandler(
    CallToolRequestSchema,
    traceServedCall(traced, async (request, extra): Promise<CallToolResult> => {
      const at = new Date().toISOString();
      const started = performance.now();
      const { name: calledName, arguments: args, _meta } = request.params;
      // A name is echoed in the error and the audit record: a client cannot make either hold megabytes.
      const name =
        calledName.length > MAX_NAME_ECHO ? `${calledName.slice(0, MAX_NAME_ECHO)}... (${calledName.length} characters)` : calledName;
      const meta: Readonly<Record<string, unknown>> | undefined = _meta;
      const callId = typeof meta?.callId === 'string' && meta.callId.length <= MAX_NAME_ECHO ? meta.callId : undefined;
      const sessionId = options.sessionId?.();
      const record = (
        outcome: AuditOutcome,
        category: ServedAuditRecord['category'],
        extraFields: Partial<ServedAuditRecord> = {},
      ): void => {
        const entry: ServedAuditRecord = {
          at,
          transport: options.transport,
          tenant: session.tenant,
          tool: name,
          category,
          outcome,
          durationMs: performance.now() - started,
          ...(sessionId === undefined ? {} : { sessionId }),
          ...(callId === undefined ? {} : { callId }),
          ...extraFields,
        };
        try {
          audit(entry);
        } catch {
          /* an audit sink that throws never fails the call */
        }
      };

      const tool = domain.byName.get(calledName);
      if (tool === undefined) {
        record('failed', undefined, { errorCode: ErrorCode.NOT_FOUND });
        throw new McpError(McpErrorCode.InvalidParams, `Unknown tool: ${name}`);
      }
      const category = tool.tool.category;
      const claimed = claimedTenant(meta, domain.tenantKey, session.tenant);
      if (claimed !== undefined) {
        record('denied', category, { errorCode: 'TENANT_MISMATCH', rule: 'tenant-mismatch' });
        return denial(
          'TENANT_MISMATCH',
          'tenant-mismatch',
          `call "${tool.label}" denied: its _meta names tenant ${JSON.stringify(claimed)}, but this session serves tenant "${session.tenant}"; ` +
            'the tenant comes from the session, never from the message — open a session with a credential for that tenant',
        );
      }
      const access = decideAccess(tool.tool, session, policy);
      if (!access.allowed) {
        record('denied', category, { errorCode: 'PERMISSION_DENIED', rule: access.rule });
        return denial('PERMISSION_DENIED', access.rule, `call "${tool.label}" denied (${access.rule}): ${access.reason}`);
      }

      const progressToken = meta?.progressToken;
      const client = mcp.getClientCapabilities();
      const hooks: CallHooks = {
        progress: (update) => {
          if (typeof progressToken !== 'string' && typeof progressToken !== 'number') return;
          extra.sendNotification({ method: 'notifications/progress', params: { progressToken, ...update } }).catch(() => undefined);
        },
        log: (entry) => {
          const severity = SEVERITY.get(entry.level);
          if (severity === undefined || (minimum !== undefined && severity < minimum)) return;
          extra
            .sendNotification({
              method: 'notifications/message',
              params: { level: entry.level, data: entry.data, ...(entry.logger === undefined ? {} : { logger: entry.logger }) },
            })
            .catch(() => undefined);
        },
        ...(client?.elicitation === undefined
          ? {}
          : {
              elicit: (params) =>
                extra.sendRequest({ method: 'elicitation/create', params: { ...params, mode: 'form' } }, ElicitResultSchema, {
                  signal: extra.signal,
                }),
            }),
        ...(client?.sampling === undefined
          ? {}
          : {
              sample: (params) =>
                extra.sendRequest({ method: 'sampling/createMessage', params }, CreateMessageResultSchema, { signal: extra.signal }),
            }),
        ...(extra.closeSSEStream === undefined ? {} : { releaseStream: extra.closeSSEStream }),
      };
      // The actor is who the session authenticated; a client's `_meta.actor` names nobody.
      const result = await callDomainTool(tool, args ?? {}, session.tenant, session.actor, callId, { signal: extra.signal }, hooks);
      if (result.success) record('succeeded', category);
      else if (result.errorCode === 'TENANT_ARGUMENT') record('denied', category, { errorCode: result.errorCode, rule: 'tenant-argument' });
      else
        record(
          result.errorCode === 'CANCELLED' ? 'cancelled' : 'failed',
          category,
          result.errorCode === undefined ? {} : { errorCode: result.errorCode },
        );
      return toCallToolResult(result);
    }),
  );
  return mcp;
}

/**
 * A `ToolResult` as the MCP answer to `tools/call`: success gives the content and the structured
 * content; failure gives `isError` with the message as text and the error code (and violations)
 * in `_meta`, so a client can tell VALIDATION from SERVER_ERROR.
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

function denial(errorCode: 'TENANT_MISMATCH' | 'PERMISSION_DENIED', rule: string, message: string): CallToolResult {
  const answer = toCallToolResult(toolFailure(performance.now(), errorCode, message));
  return { ...answer, _meta: { ...answer._meta, rule } };
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
