/**
 * The server side of a served domain server's `tools/call`: a SERVER span `tools/call <tool>`
 * whose parent is the trace context the client sent in `params._meta` (MCP conventions), else the
 * host's active context. A no-op without `@opentelemetry/api`.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { otelApi } from './otel-api.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_SESSION_ID,
  ATTR_NETWORK_TRANSPORT,
  ATTR_TENANT,
  GEN_AI_OPERATION_EXECUTE_TOOL,
  INSTRUMENTATION_SCOPE,
} from './semconv.js';
import { sessionIdDigest } from './mcp-request-span.js';
import { extractTraceContext } from './trace-context.js';

/** The request as the handler gets it: the tool's name and the `_meta` bag. */
interface ServedRequest {
  readonly params: { readonly name: string; readonly _meta?: Readonly<Record<string, unknown>> | undefined };
}

/** Where the request came from: the served transport, the session's tenant and id. */
export interface ServedFacts {
  /** `stdio` or `http`. */
  readonly transport: string;
  readonly tenant: string;
  readonly sessionId?: (() => string | undefined) | undefined;
}

/** `handler` inside a SERVER span of the call (the name is cut to 128 characters). */
export function traceServedCall<R extends ServedRequest, X>(
  facts: ServedFacts,
  handler: (request: R, extra: X) => Promise<CallToolResult>,
): (request: R, extra: X) => Promise<CallToolResult> {
  const api = otelApi();
  if (!api) return handler;
  const tracer = api.trace.getTracer(INSTRUMENTATION_SCOPE);
  return async (request, extra) => {
    const tool = request.params.name.slice(0, 128);
    const sessionId = facts.sessionId?.();
    const span = tracer.startSpan(
      `tools/call ${tool}`,
      {
        kind: api.SpanKind.SERVER,
        attributes: {
          [ATTR_MCP_METHOD_NAME]: 'tools/call',
          [ATTR_GEN_AI_TOOL_NAME]: tool,
          [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_EXECUTE_TOOL,
          [ATTR_NETWORK_TRANSPORT]: facts.transport === 'stdio' ? 'pipe' : 'tcp',
          [ATTR_TENANT]: facts.tenant,
          ...(sessionId === undefined ? {} : { [ATTR_MCP_SESSION_ID]: sessionIdDigest(sessionId) }),
        },
      },
      extractTraceContext(api, request.params._meta, api.context.active()),
    );
    try {
      const result = await handler(request, extra);
      if (result.isError === true) {
        const code = result._meta?.errorCode;
        const type = typeof code === 'string' ? code : 'tool_error';
        span.setAttribute(ATTR_ERROR_TYPE, type);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: type });
      }
      return result;
    } catch (error) {
      const code = (error as { code?: unknown } | undefined)?.code;
      const type = typeof code === 'number' || typeof code === 'string' ? String(code) : '_OTHER';
      span.setAttribute(ATTR_ERROR_TYPE, type);
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: type });
      throw error;
    } finally {
      span.end();
    }
  };
}
