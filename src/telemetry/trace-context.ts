/**
 * W3C Trace Context in an MCP request's `params._meta` (OpenTelemetry's MCP conventions, SEP-414):
 * `traceparent` and `tracestate`, unprefixed. Injected through the host's configured propagator;
 * where the host configured none, written in the W3C format by hand, so a served domain server
 * can still take the client's span as its parent.
 */
import type { OtelApi } from './otel-api.js';

type Api = typeof OtelApi;
type Carrier = Record<string, unknown>;

const TRACEPARENT = 'traceparent';
const TRACESTATE = 'tracestate';
const TRACEPARENT_FORMAT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

const setter: OtelApi.TextMapSetter<Carrier> = { set: (carrier, key, value) => void (carrier[key] = value) };
const getter: OtelApi.TextMapGetter<Carrier> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/** The trace context of `context` as `_meta` entries (empty when it holds no valid span). */
export function injectTraceContext(api: Api, context: OtelApi.Context): Record<string, string> {
  const carrier: Carrier = {};
  api.propagation.inject(context, carrier, setter);
  const span = api.trace.getSpanContext(context);
  if (carrier[TRACEPARENT] === undefined && span && api.isSpanContextValid(span)) {
    carrier[TRACEPARENT] = `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
    const state = span.traceState?.serialize();
    if (state) carrier[TRACESTATE] = state;
  }
  return carrier as Record<string, string>;
}

/** The remote parent a request's `_meta` names, on top of `base` (base itself when it names none). */
export function extractTraceContext(api: Api, meta: Readonly<Record<string, unknown>> | undefined, base: OtelApi.Context): OtelApi.Context {
  if (!meta || typeof meta[TRACEPARENT] !== 'string') return base;
  const carrier = meta as Carrier;
  const extracted = api.propagation.extract(base, carrier, getter);
  if (api.trace.getSpanContext(extracted) !== api.trace.getSpanContext(base)) return extracted;
  const [, traceId, spanId, flags] = TRACEPARENT_FORMAT.exec(meta[TRACEPARENT]) ?? [];
  if (traceId === undefined || spanId === undefined || flags === undefined) return base;
  const state = meta[TRACESTATE];
  const spanContext: OtelApi.SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16),
    isRemote: true,
    ...(typeof state === 'string' && state.length > 0 ? { traceState: api.createTraceState(state) } : {}),
  };
  return api.isSpanContextValid(spanContext) ? api.trace.setSpanContext(base, spanContext) : base;
}

/** Whether `meta` carries a trace context. */
export function hasTraceContext(meta: Readonly<Record<string, unknown>> | undefined): boolean {
  return typeof meta?.[TRACEPARENT] === 'string';
}
