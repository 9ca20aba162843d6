/**
 * Runs one tool call through the tool-call machine and resolves with its outcome — exactly once,
 * whatever happens: an unknown tool is a `rejected` outcome, not a throw.
 */
import { createActor, toPromise, type InspectionEvent, type Observer } from 'xstate';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { CallOutcome, ToolCallInput } from '../machines/tool-call-io.js';
import { toolCallMachine } from '../machines/tool-call-machine.js';
import { toolCallActors } from './tool-call-actors.js';
import { toolCallSteps, type ToolCallEnvironment } from './tool-call-steps.js';

export interface ToolCallRequest {
  /** Full tool name, `<namespace>/<tool>`. */
  readonly tool: string;
  readonly args?: Readonly<Record<string, unknown>>;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly meta?: Readonly<Record<string, unknown>>;
  readonly callId?: string;
}

export interface RunOptions {
  readonly inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  readonly systemId?: string;
  readonly defaultTimeoutMs?: number;
}

let sequence = 0;

/**
 * @example
 * const outcome = await runToolCall({ registry, workspace }, { tool: 'fs/write_file', args: { path: 'src/main.py', content: 'x' } });
 * if (outcome.status === 'committed') console.log(outcome.changes);
 */
export async function runToolCall(environment: ToolCallEnvironment, request: ToolCallRequest, options: RunOptions = {}): Promise<CallOutcome> {
  const callId = request.callId ?? `call-${++sequence}`;
  const startedAt = Date.now();
  const tool = environment.registry.get(request.tool);
  if (!tool) {
    return {
      callId,
      tool: request.tool,
      status: 'rejected',
      result: undefined,
      changes: [],
      checkpointId: undefined,
      error: new McpActorsError(ErrorCode.NOT_FOUND, `no tool named "${request.tool}" is available; tools are named "<namespace>/<tool>"`, {
        details: { tool: request.tool },
      }),
      durationMs: 0,
    };
  }
  const input: ToolCallInput = {
    callId,
    tool,
    args: request.args ?? {},
    timeoutMs: request.timeoutMs ?? options.defaultTimeoutMs ?? 60_000,
    meta: request.meta,
    sandboxed: environment.workspace !== undefined,
    startedAt,
  };
  const actor = createActor(toolCallMachine.provide({ actors: toolCallActors(toolCallSteps(environment)) }), {
    input,
    systemId: options.systemId ?? `call:${callId}`,
    ...(options.inspect ? { inspect: options.inspect } : {}),
  });
  const onAbort = (): void => actor.send({ type: 'call.cancel', reason: String(request.signal?.reason ?? 'aborted') });
  request.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    actor.start();
    if (request.signal?.aborted) onAbort();
    return await toPromise(actor);
  } finally {
    request.signal?.removeEventListener('abort', onAbort);
  }
}
