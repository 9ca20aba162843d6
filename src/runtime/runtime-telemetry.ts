/**
 * A runtime's traces, read from its own event stream (`events$`, already redacted): a span
 * `execute_tool <tool>` per tool call (GenAI conventions) from `call.started` to `call.ended`, a
 * span per server run (from STARTING to STOPPED or ERROR) with its state changes and restarts as
 * span events, and child spans of the call for the steps that are its own work: approval,
 * checkpoint, commit, rollback (`traceSteps`). The call's trace context reaches the MCP request
 * through the call's `_meta` (see `mcp-request-span.ts`). Nothing a tool is given or answers is
 * recorded: names, ids, codes and counts only.
 */
import type { Observable } from 'rxjs';
import type { RuntimeEvent } from './runtime-events.js';
import type { ToolCallSteps } from '../tool-call/tool-call-steps.js';
import type { ToolCallInput } from '../tool-call/tool-call-io.js';
import { otelApi, type OtelApi } from '../telemetry/otel-api.js';
import {
  ATTR_ACTOR,
  ATTR_CALL_STATUS,
  ATTR_CHECKPOINT_ID,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_PROCESS_PID,
  ATTR_SERVER,
  ATTR_SERVER_RESTARTS,
  ATTR_SERVER_STATE,
  ATTR_TENANT,
  ATTR_TOOL_CATEGORY,
  GEN_AI_OPERATION_EXECUTE_TOOL,
  INSTRUMENTATION_SCOPE,
} from '../telemetry/semconv.js';
import { injectTraceContext } from '../telemetry/trace-context.js';

type Api = typeof OtelApi;
type CallEvent<T extends RuntimeEvent['type']> = Extract<RuntimeEvent, { type: T }>;

/** A runtime's telemetry; absent when the host has no `@opentelemetry/api`. */
export interface RuntimeTelemetry {
  /** `steps` with a child span of the call around approval, checkpoint, commit and rollback, and the call's trace context in `_meta`. */
  traceSteps(steps: ToolCallSteps): ToolCallSteps;
  /** Ends what is still open (server runs) and stops listening. */
  close(): void;
}

/**
 * Traces a runtime from its event stream; undefined (nothing subscribed, nothing wrapped) when the
 * host has not installed `@opentelemetry/api`.
 */
export function traceRuntime(events$: Observable<RuntimeEvent>): RuntimeTelemetry | undefined {
  const api = otelApi();
  return api ? new EventTracer(api, events$) : undefined;
}

interface CallSpan {
  readonly span: OtelApi.Span;
  readonly context: OtelApi.Context;
  readonly tool: string;
}

class EventTracer implements RuntimeTelemetry {
  private readonly tracer: OtelApi.Tracer;
  private readonly calls = new Map<string, CallSpan>();
  /** Server runs by server, tenant and sandbox. */
  private readonly servers = new Map<string, OtelApi.Span>();
  private readonly subscription: { unsubscribe(): void };

  constructor(
    private readonly api: Api,
    events$: Observable<RuntimeEvent>,
  ) {
    this.tracer = api.trace.getTracer(INSTRUMENTATION_SCOPE);
    this.subscription = events$.subscribe({ next: (event) => this.on(event), complete: () => this.close() });
  }

  private on(event: RuntimeEvent): void {
    switch (event.type) {
      case 'call.started':
        this.callStarted(event);
        return;
      case 'call.ended':
        this.callEnded(event);
        return;
      case 'server.state':
        this.serverState(event);
        return;
      case 'server.restarted':
        this.serverRestarted(event);
        return;
      default:
        return;
    }
  }

  private startCall(event: { callId: string; tool: string; actor: string; tenant: string }, startTime?: number): CallSpan {
    const { api } = this;
    const parent = api.context.active();
    const span = this.tracer.startSpan(
      `${GEN_AI_OPERATION_EXECUTE_TOOL} ${event.tool}`,
      {
        kind: api.SpanKind.INTERNAL,
        attributes: {
          [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_EXECUTE_TOOL,
          [ATTR_GEN_AI_TOOL_NAME]: event.tool,
          [ATTR_GEN_AI_TOOL_CALL_ID]: event.callId,
          [ATTR_ACTOR]: event.actor,
          [ATTR_TENANT]: event.tenant,
        },
        ...(startTime === undefined ? {} : { startTime }),
      },
      parent,
    );
    return { span, context: api.trace.setSpan(parent, span), tool: event.tool };
  }

  private callStarted(event: CallEvent<'call.started'>): void {
    const call = this.startCall(event);
    call.span.setAttribute(ATTR_TOOL_CATEGORY, event.category);
    this.calls.set(event.callId, call);
  }

  private callEnded(event: CallEvent<'call.ended'>): void {
    // A call refused before it reached a tool (unknown tool, inactive actor) has no start event.
    const call = this.calls.get(event.callId) ?? this.startCall(event, Date.now() - event.durationMs);
    this.calls.delete(event.callId);
    const { span } = call;
    span.setAttribute(ATTR_CALL_STATUS, event.status);
    if (event.category !== undefined) span.setAttribute(ATTR_TOOL_CATEGORY, event.category);
    if (event.checkpointId !== undefined) span.setAttribute(ATTR_CHECKPOINT_ID, event.checkpointId);
    if (event.errorCode !== undefined) {
      span.setAttribute(ATTR_ERROR_TYPE, event.errorCode);
      span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: event.errorCode });
    }
    span.end();
  }

  private serverState(event: CallEvent<'server.state'>): void {
    const key = serverKey(event.server, event.tenant, event.sandbox);
    let span = this.servers.get(key);
    if (!span) {
      if (event.state === 'STOPPED') return;
      span = this.tracer.startSpan(
        `server ${event.server}`,
        {
          kind: this.api.SpanKind.INTERNAL,
          attributes: { [ATTR_SERVER]: event.server, [ATTR_TENANT]: event.tenant },
        },
        this.api.ROOT_CONTEXT,
      );
      this.servers.set(key, span);
    }
    span.addEvent('server.state', {
      [ATTR_SERVER_STATE]: event.state,
      ...(event.pid === undefined ? {} : { [ATTR_PROCESS_PID]: event.pid }),
    });
    if (event.state === 'STOPPED' || event.state === 'ERROR') {
      if (event.state === 'ERROR') span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: 'ERROR' });
      span.end();
      this.servers.delete(key);
    }
  }

  private serverRestarted(event: CallEvent<'server.restarted'>): void {
    const prefix = serverKey(event.server, event.tenant, '');
    for (const [key, span] of this.servers) {
      if (key.startsWith(prefix)) span.addEvent('server.restarted', { [ATTR_SERVER_RESTARTS]: event.restarts });
    }
  }

  traceSteps(steps: ToolCallSteps): ToolCallSteps {
    const step = <T>(name: string, input: ToolCallInput, run: () => Promise<T>, describe: (value: T) => OtelApi.Attributes): Promise<T> => {
      const call = this.calls.get(input.callId);
      if (!call) return run();
      const span = this.tracer.startSpan(
        `${name} ${call.tool}`,
        { attributes: { [ATTR_GEN_AI_TOOL_CALL_ID]: input.callId } },
        call.context,
      );
      return run().then(
        (value) => {
          span.setAttributes(describe(value));
          span.end();
          return value;
        },
        (error: unknown) => {
          const code =
            typeof (error as { code?: unknown } | null | undefined)?.code === 'string' ? (error as { code: string }).code : '_OTHER';
          span.setAttribute(ATTR_ERROR_TYPE, code);
          span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: code });
          span.end();
          throw error;
        },
      );
    };
    return {
      ...steps,
      authorize: (input) =>
        step(
          'approval',
          input,
          async () => steps.authorize(input),
          (answer) =>
            answer.allowed
              ? { 'mcp_actors.approval.allowed': true }
              : { 'mcp_actors.approval.allowed': false, 'mcp_actors.approval.rule': answer.rule },
        ),
      checkpoint: (input) =>
        step(
          'checkpoint',
          input,
          () => steps.checkpoint(input),
          (id) => (id ? { [ATTR_CHECKPOINT_ID]: id } : {}),
        ),
      commit: (input, checkpointId) =>
        step(
          'commit',
          input,
          () => steps.commit(input, checkpointId),
          (report) => ({ 'mcp_actors.commit.ok': report.ok, 'mcp_actors.commit.changes': report.changes.length }),
        ),
      rollback: (input, checkpointId) =>
        step(
          'rollback',
          input,
          () => steps.rollback(input, checkpointId),
          (report) => ({
            'mcp_actors.rollback.restored': report.restored,
            ...(checkpointId ? { [ATTR_CHECKPOINT_ID]: checkpointId } : {}),
          }),
        ),
      invoke: (input, args, signal) => {
        const call = this.calls.get(input.callId);
        const carried = call ? injectTraceContext(this.api, call.context) : {};
        return steps.invoke(Object.keys(carried).length === 0 ? input : { ...input, meta: { ...input.meta, ...carried } }, args, signal);
      },
    };
  }

  close(): void {
    this.subscription.unsubscribe();
    for (const span of this.servers.values()) span.end();
    this.servers.clear();
    for (const { span } of this.calls.values()) span.end();
    this.calls.clear();
  }
}

function serverKey(server: string, tenant: string, sandbox: string | undefined): string {
  return `${server}\u0000${tenant}\u0000${sandbox ?? ''}`;
}
