/**
 * The client side of one MCP request: a CLIENT span `<method> <target>` (MCP conventions), the
 * `mcp.client.operation.duration` histogram, and the request's `_meta` with the span's trace
 * context. The span's parent is the trace context the caller put in `_meta` (the runtime puts the
 * tool call's span there), else the host's active context. A no-op without `@opentelemetry/api`.
 */
import { createHash } from 'node:crypto';
import { otelApi, type OtelApi } from './otel-api.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
  ATTR_NETWORK_TRANSPORT,
  ATTR_RPC_RESPONSE_STATUS_CODE,
  ATTR_SERVER,
  DURATION_BUCKETS_S,
  GEN_AI_OPERATION_EXECUTE_TOOL,
  INSTRUMENTATION_SCOPE,
  METRIC_MCP_CLIENT_OPERATION_DURATION,
} from './semconv.js';
import { extractTraceContext, injectTraceContext } from './trace-context.js';

/** What the client knows about a request as it sends it. */
export interface McpRequestFacts {
  readonly server: string;
  readonly method: string;
  /** The tool (or prompt) the request is about: the span name's target. */
  readonly target?: string | undefined;
  readonly sessionId?: string | undefined;
  readonly protocolVersion?: string | undefined;
  /** `stdio`, `sse` or `streamable-http`. */
  readonly transport: string;
  /** The `_meta` the caller gave (its trace context, if any, is the span's parent). */
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
}

/** One request in flight: the `_meta` to send, and its end (an error, or a tool's `isError` answer). */
export interface McpRequestSpan {
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  end(outcome?: { readonly errorType?: string | undefined; readonly jsonRpcCode?: number | undefined }): void;
}

const untraced = (meta: Readonly<Record<string, unknown>> | undefined): McpRequestSpan => ({ meta, end: () => undefined });

let histogram: { provider: OtelApi.MeterProvider; instrument: OtelApi.Histogram } | undefined;

/** The histogram of the meter provider registered now (a host may register its SDK after our first request). */
function durationHistogram(api: typeof OtelApi): OtelApi.Histogram {
  const provider = api.metrics.getMeterProvider();
  if (histogram?.provider !== provider) {
    const instrument = provider.getMeter(INSTRUMENTATION_SCOPE).createHistogram(METRIC_MCP_CLIENT_OPERATION_DURATION, {
      unit: 's',
      description: 'The duration of the MCP request as observed on the sender from the time it was sent until the response was received.',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
    });
    histogram = { provider, instrument };
  }
  return histogram.instrument;
}

/**
 * An MCP session id is a capability on some servers: it is recorded as the first 16 hex digits of
 * its SHA-256, enough to correlate spans, useless to resume a session.
 */
export function sessionIdDigest(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex').slice(0, 16);
}

/** Starts the span of one MCP request (call `end` once it settles). */
export function startMcpRequest(facts: McpRequestFacts): McpRequestSpan {
  const api = otelApi();
  if (!api) return untraced(facts.meta);
  const attributes: OtelApi.Attributes = {
    [ATTR_MCP_METHOD_NAME]: facts.method,
    [ATTR_SERVER]: facts.server,
    [ATTR_NETWORK_TRANSPORT]: facts.transport === 'stdio' ? 'pipe' : 'tcp',
  };
  if (facts.target !== undefined && facts.method === 'tools/call') {
    attributes[ATTR_GEN_AI_TOOL_NAME] = facts.target;
    attributes[ATTR_GEN_AI_OPERATION_NAME] = GEN_AI_OPERATION_EXECUTE_TOOL;
  }
  if (facts.protocolVersion !== undefined) attributes[ATTR_MCP_PROTOCOL_VERSION] = facts.protocolVersion;
  const parent = extractTraceContext(api, facts.meta, api.context.active());
  const span = api.trace.getTracer(INSTRUMENTATION_SCOPE).startSpan(
    facts.target === undefined ? facts.method : `${facts.method} ${facts.target}`,
    {
      kind: api.SpanKind.CLIENT,
      attributes: facts.sessionId === undefined ? attributes : { ...attributes, [ATTR_MCP_SESSION_ID]: sessionIdDigest(facts.sessionId) },
    },
    parent,
  );
  const started = performance.now();
  const carried =
    span.isRecording() || api.isSpanContextValid(span.spanContext()) ? injectTraceContext(api, api.trace.setSpan(parent, span)) : {};
  const meta = Object.keys(carried).length === 0 ? facts.meta : { ...facts.meta, ...carried };
  let ended = false;
  return {
    meta,
    end(outcome = {}) {
      if (ended) return;
      ended = true;
      const { errorType, jsonRpcCode } = outcome;
      const metricAttributes: OtelApi.Attributes = { ...attributes };
      if (errorType !== undefined) {
        span.setAttribute(ATTR_ERROR_TYPE, errorType);
        metricAttributes[ATTR_ERROR_TYPE] = errorType;
        // The code only: a message may quote what the tool was given.
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: errorType });
      }
      if (jsonRpcCode !== undefined) {
        span.setAttribute(ATTR_RPC_RESPONSE_STATUS_CODE, String(jsonRpcCode));
        metricAttributes[ATTR_RPC_RESPONSE_STATUS_CODE] = String(jsonRpcCode);
      }
      span.end();
      durationHistogram(api).record((performance.now() - started) / 1_000, metricAttributes);
    },
  };
}
