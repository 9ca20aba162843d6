/**
 * Runs one tool call by name against a registry (and, when given, a sandbox workspace) and
 * resolves with its outcome — exactly once, whatever happens: an unknown tool is a `rejected`
 * outcome, not a throw.
 */
import type { InspectionEvent, Observer } from 'xstate';
import { closest } from '../config/suggest.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { CallOutcome, ToolCallInput } from './tool-call-io.js';
import { executeToolCall } from './execute-tool-call.js';
import { toolCallSteps, type ToolCallEnvironment } from './tool-call-steps.js';
import { serverDownError, serverDownReason, type DownServer } from './server-down.js';

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
  readonly defaultTimeoutMs?: number;
}

let sequence = 0;

/**
 * The outcome of a call that never started: the tool is not there — or it is a tool of a server
 * in `down` (one that did not start, or gave up), and the outcome says so, why, and the way back.
 */
export function unknownToolOutcome(
  callId: string,
  tool: string,
  known: readonly string[] = [],
  down: readonly DownServer[] = [],
): CallOutcome {
  const server = down.find((entry) => tool.startsWith(`${entry.server}/`));
  const near = closest(tool, known);
  const hint = near !== undefined ? `did you mean "${near}"?` : 'tools are named "<namespace>/<tool>"';
  const error =
    server !== undefined
      ? serverDownError(tool, serverDownReason(server.server, server.error))
      : new McpActorsError(ErrorCode.NOT_FOUND, `no tool named "${tool}" is available; ${hint}`, {
          details: { tool, ...(near !== undefined ? { suggestion: near } : {}) },
        });
  return { callId, tool, status: 'rejected', result: undefined, changes: [], checkpointId: undefined, error, durationMs: 0 };
}

/**
 * @example
 * const outcome = await runToolCall({ registry, workspace }, { tool: 'fs/write_file', args: { path: 'src/main.py', content: 'x' } });
 * if (outcome.status === 'committed') console.log(outcome.changes);
 */
export async function runToolCall(
  environment: ToolCallEnvironment,
  request: ToolCallRequest,
  options: RunOptions = {},
): Promise<CallOutcome> {
  const callId = request.callId ?? `call-${++sequence}`;
  const tool = environment.registry.get(request.tool);
  if (!tool)
    return unknownToolOutcome(
      callId,
      request.tool,
      environment.registry.list().map((t) => t.name),
    );
  const input: ToolCallInput = {
    callId,
    tool,
    args: request.args ?? {},
    timeoutMs: request.timeoutMs ?? options.defaultTimeoutMs ?? 60_000,
    meta: request.meta,
    sandboxed: environment.workspace !== undefined,
    startedAt: Date.now(),
  };
  return executeToolCall(toolCallSteps(environment), input, { signal: request.signal, inspect: options.inspect });
}
