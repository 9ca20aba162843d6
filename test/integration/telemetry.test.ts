/**
 * OpenTelemetry through the real SDK (sdk-trace-base's in-memory exporter, sdk-metrics): the
 * spans of a committed, a rolled-back and a refused call, a restart as a span event of the
 * server's span, the trace context reaching a served domain server over streamable HTTP (its span
 * is the client span's child), the `mcp.client.operation.duration` histogram, and no secret —
 * given through a server's env and headers — anywhere in what is exported.
 */
import { rmSync } from 'node:fs';
import { metrics, SpanKind, trace } from '@opentelemetry/api';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineServer } from '../../src/domain/define-server.js';
import { defineTool } from '../../src/domain/define-tool.js';
import { serveOverHttp, type HttpServedDomainServer } from '../../src/serve/serve-http.js';
import { createRuntime, type Runtime } from '../../src/runtime/create-runtime.js';
import * as semconv from '../../src/telemetry/semconv.js';
import { fixtureServerPath } from '../../src/testing/fixture.js';
import { createGitProject } from '../support/git-project.js';
import { anyOf, stringMatching } from '../support/matchers.js';

const SECRET = 'sk-live-Telemetry-7f3a9c21e4';

class CollectingReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const reader = new CollectingReader({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
const meterProvider = new MeterProvider({ readers: [reader] });

const roster = defineServer({
  name: 'roster',
  tools: [
    defineTool({
      name: 'list_shifts',
      domain: 'roster',
      category: 'read',
      description: 'Lists shifts.',
      input: { type: 'object', properties: {} },
      call: () => ({ shifts: [] }),
    }),
  ],
});

// Unset in afterAll when beforeAll failed before them.
let runtime: Runtime | undefined;
let served: HttpServedDomainServer | undefined;
let project: string;

beforeAll(async () => {
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  project = createGitProject({ 'notes.txt': 'one\n' });
  served = await serveOverHttp(roster, { tenant: 'acme', announce: false });
  const fixture = (extra: string[] = []) => ({
    command: process.execPath,
    args: [fixtureServerPath(), ...extra],
    cwd: '${SANDBOX_ROOT}',
    env: { API_TOKEN: '${SECRET_TOKEN}' },
    confine: false,
    backoff: { initial_ms: 10, max_ms: 50, jitter: 0 },
  });
  runtime = await createRuntime({
    env: { ...process.env, SECRET_TOKEN: SECRET },
    approve: () => false,
    config: {
      servers: {
        fixture: fixture(),
        flaky: { ...fixture(['--crash-after=1']), cwd: project },
        roster: { url: served.url, transport: 'streamable-http', headers: { Authorization: 'Bearer ${SECRET_TOKEN}' } },
      },
      skills: { edit: { mcp_servers: ['fixture'] }, flaky: { mcp_servers: ['flaky'] }, remote: { mcp_servers: ['roster'] } },
      actors: {
        editor: { skills: ['edit'], permissions: { execute: 'allow' } },
        asker: { skills: ['edit'], permissions: { execute: 'ask' } },
        crasher: { skills: ['flaky'], permissions: { execute: 'allow' } },
        planner: { skills: ['remote'], permissions: { execute: 'allow' } },
      },
    },
  });
});

afterAll(async () => {
  await runtime?.shutdown();
  await served?.close();
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
  trace.disable();
  metrics.disable();
  rmSync(project, { recursive: true, force: true });
});

const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
const named = (name: string): ReadableSpan[] => spans().filter((span) => span.name === name);
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const childrenOf = (parent: ReadableSpan): ReadableSpan[] => spans().filter((span) => parentOf(span) === parent.spanContext().spanId);
const callSpan = (callId: string): ReadableSpan => {
  const found = spans().find((span) => span.attributes['gen_ai.tool.call.id'] === callId && span.name.startsWith('execute_tool '));
  expect(found, `the execute_tool span of ${callId}`).toBeDefined();
  return found!;
};

describe('OpenTelemetry spans of the runtime', () => {
  it('uses the names of the semantic conventions 1.45 (incubating entry point)', () => {
    /* eslint-disable @typescript-eslint/no-deprecated -- the contract test of our copies: the package still exports these names, marked as moved to the GenAI conventions repository, which publishes no package to compare with */
    expect(semconv.ATTR_GEN_AI_OPERATION_NAME).toBe(incubating.ATTR_GEN_AI_OPERATION_NAME);
    expect(semconv.ATTR_GEN_AI_TOOL_NAME).toBe(incubating.ATTR_GEN_AI_TOOL_NAME);
    expect(semconv.ATTR_GEN_AI_TOOL_CALL_ID).toBe(incubating.ATTR_GEN_AI_TOOL_CALL_ID);
    expect(semconv.ATTR_MCP_METHOD_NAME).toBe(incubating.ATTR_MCP_METHOD_NAME);
    expect(semconv.ATTR_MCP_SESSION_ID).toBe(incubating.ATTR_MCP_SESSION_ID);
    expect(semconv.ATTR_MCP_PROTOCOL_VERSION).toBe(incubating.ATTR_MCP_PROTOCOL_VERSION);
    expect(semconv.METRIC_MCP_CLIENT_OPERATION_DURATION).toBe(incubating.METRIC_MCP_CLIENT_OPERATION_DURATION);
    /* eslint-enable @typescript-eslint/no-deprecated */
    expect(semconv.GEN_AI_OPERATION_EXECUTE_TOOL).toBe(incubating.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL);
  });

  it('a committed, a rolled-back and a refused call: execute_tool spans with their steps and MCP client spans as children', async () => {
    const sandbox = await runtime!.createSandbox(project);
    const editor = await runtime!.activate('editor', { tenant: 'acme', sandbox });
    const asker = await runtime!.activate('asker', { tenant: 'acme', sandbox });
    const committed = await editor.call('fixture/echo', { message: 'hello' });
    const rolledBack = await editor.call('fixture/write_then_fail', { path: 'notes.txt', content: SECRET });
    const refused = await asker.call('fixture/echo', { message: 'may I?' });
    expect([committed.status, rolledBack.status, refused.status]).toEqual(['committed', 'rolled-back', 'rejected']);

    const ok = callSpan(committed.callId);
    expect(ok.name).toBe('execute_tool fixture/echo');
    expect(ok.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'fixture/echo',
      'mcp_actors.call.status': 'committed',
      'mcp_actors.tenant': 'acme',
    });
    expect(ok.attributes['error.type']).toBeUndefined();
    const okChildren = childrenOf(ok).map((span) => span.name);
    expect(okChildren).toEqual(expect.arrayContaining(['checkpoint fixture/echo', 'commit fixture/echo', 'tools/call echo']));
    const request = childrenOf(ok).find((span) => span.name === 'tools/call echo')!;
    expect(request.kind).toBe(2); // CLIENT
    expect(request.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'network.transport': 'pipe',
      'mcp.protocol.version': anyOf(String),
    });

    const back = callSpan(rolledBack.callId);
    expect(back.attributes).toMatchObject({ 'mcp_actors.call.status': 'rolled-back', 'error.type': 'TOOL_FAILED' });
    expect(back.status.code).toBe(2); // ERROR
    const rollback = childrenOf(back).find((span) => span.name === 'rollback fixture/write_then_fail');
    expect(rollback?.attributes).toMatchObject({
      'mcp_actors.rollback.restored': true,
      'mcp_actors.checkpoint.id': rolledBack.checkpointId,
    });
    expect(childrenOf(back).find((span) => span.name === 'tools/call write_then_fail')?.attributes['error.type']).toBe('tool_error');

    const no = callSpan(refused.callId);
    expect(no.attributes).toMatchObject({ 'mcp_actors.call.status': 'rejected', 'error.type': 'PERMISSION_DENIED' });
    const approval = childrenOf(no).find((span) => span.name === 'approval fixture/echo');
    expect(approval?.attributes).toMatchObject({ 'mcp_actors.approval.allowed': false });
    expect(childrenOf(no).some((span) => span.name.startsWith('tools/call'))).toBe(false);
  });

  it('records a restart as an event of the server span', async () => {
    const crasher = await runtime!.activate('crasher', { tenant: 'acme' });
    expect((await crasher.call('flaky/echo', { message: 'a' })).status).toBe('committed');
    expect((await crasher.call('flaky/echo', { message: 'b' })).error?.code).toBe('CONNECTION_LOST');
    expect((await crasher.call('flaky/echo', { message: 'c' }, { timeoutMs: 10_000 })).status).toBe('committed');
    await crasher.deactivate();
    const server = named('server flaky').at(-1);
    expect(server, 'the flaky server span, ended when it stopped').toBeDefined();
    const events = server!.events.map((event) => [
      event.name,
      event.attributes?.['mcp_actors.server.state'] ?? event.attributes?.['mcp_actors.server.restarts'],
    ]);
    expect(events).toEqual(
      expect.arrayContaining([
        ['server.restarted', 1],
        ['server.state', 'RUNNING'],
        ['server.state', 'STOPPED'],
      ]),
    );
  });

  it('carries the trace context to a served domain server: its span is the child of the client span', async () => {
    const planner = await runtime!.activate('planner', { tenant: 'acme' });
    const outcome = await planner.call('roster/list_shifts', {});
    expect(outcome.status).toBe('committed');
    const call = callSpan(outcome.callId);
    const client = childrenOf(call).find((span) => span.name === 'tools/call list_shifts');
    expect(client?.attributes).toMatchObject({ 'network.transport': 'tcp', 'mcp.session.id': stringMatching(/^[0-9a-f]{16}$/) });
    const server = spans().find((span) => span.kind === SpanKind.SERVER && span.name === 'tools/call list_shifts');
    expect(server, 'the served domain server span').toBeDefined();
    expect(server!.spanContext().traceId).toBe(call.spanContext().traceId);
    expect(parentOf(server!)).toBe(client!.spanContext().spanId);
    expect(server!.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'list_shifts',
      'mcp_actors.tenant': 'acme',
    });
  });

  it('records mcp.client.operation.duration in seconds per method', async () => {
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .find((m) => m.descriptor.name === 'mcp.client.operation.duration');
    expect(metric?.descriptor.unit).toBe('s');
    const methods = new Set(metric!.dataPoints.map((point) => point.attributes['mcp.method.name']));
    expect(methods).toEqual(new Set(['tools/call', 'tools/list']));
  });

  it('exports no secret given through a server env or headers, in any byte', () => {
    expect(spans().length).toBeGreaterThan(10);
    const exported = JSON.stringify(
      spans().map((span) => ({
        name: span.name,
        attributes: span.attributes,
        events: span.events,
        status: span.status,
        links: span.links,
        resource: span.resource.attributes,
      })),
    );
    expect(exported).not.toContain(SECRET);
    expect(exported).not.toContain('Telemetry-7f3a');
  });
});
