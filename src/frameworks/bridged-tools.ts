/**
 * An actor's tools as framework bridges see them: model names (see tool-names.ts), a JSON Schema
 * object for the input, and a `run` that goes through `actor.call` — so approval, tenant,
 * sandbox, checkpoint and audit stay as they are — and answers what the model is to be shown
 * (see model-answer.ts). `run` never throws: a refusal or failure is an answer with `ok: false`.
 */
import type { ActorCallOptions, ActorTool } from '../runtime/actor-handle.js';
import type { CallOutcome } from '../tool-call/tool-call-io.js';
import { modelAnswerOf, type ModelAnswer } from './model-answer.js';
import { mapToolNames, type ToolNameMap } from './tool-names.js';

/** What a bridge needs of an actor: an `ActorHandle` is one. */
export interface ToolActor {
  tools(): readonly ActorTool[];
  call(toolName: string, args?: Readonly<Record<string, unknown>>, options?: ActorCallOptions): Promise<CallOutcome>;
}

export interface BridgeOptions {
  /** Which of the actor's tools to hand over (default: every usable one). */
  readonly filter?: (tool: ActorTool) => boolean;
  /** Each call's timeout (default: the runtime's `callTimeoutMs`). */
  readonly timeoutMs?: number;
  /** Told every call's full outcome (changes, checkpoint, error object), which the model is not shown. */
  readonly onOutcome?: (outcome: CallOutcome) => void;
}

/** One actor tool, ready for a framework. */
export interface BridgedTool {
  /** The name the model sees: matches `^[a-zA-Z0-9_-]{1,64}$`. */
  readonly modelName: string;
  /** The actor's name for it (`<server>/<tool>`), what `actor.call` is given. */
  readonly actorName: string;
  readonly description: string;
  /** The tool's input schema, always an object schema (`type: 'object'`, `properties`). */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly tool: ActorTool;
  run(args: unknown, signal?: AbortSignal): Promise<ModelAnswer>;
}

export interface BridgedToolSet {
  readonly tools: readonly BridgedTool[];
  readonly names: ToolNameMap;
}

/** The actor's current tools, bridged. Call it again after the actor's tool list changed. */
export function bridgeTools(actor: ToolActor, options: BridgeOptions = {}): BridgedToolSet {
  const chosen = actor.tools().filter((tool) => tool.unusable === undefined && (options.filter?.(tool) ?? true));
  const names = mapToolNames(chosen.map((tool) => tool.name));
  const tools = chosen.map((tool): BridgedTool => {
    const actorName = tool.name;
    const modelName = names.modelName(actorName);
    if (modelName === undefined) throw new Error(`mapToolNames gave no model name for "${actorName}", one of the names it was given`);
    return {
      modelName,
      actorName,
      description: tool.description || `${tool.toolName} (${tool.namespace})`,
      inputSchema: objectSchemaOf(tool.inputSchema),
      tool,
      run: async (args, signal) => {
        if (args !== undefined && args !== null && (typeof args !== 'object' || Array.isArray(args))) {
          const text = `The call was refused (INVALID_ARGUMENT): the arguments of "${actorName}" must be a JSON object`;
          return {
            ok: false,
            status: 'rejected',
            blocks: [{ type: 'text', text }],
            text,
            error: { code: 'INVALID_ARGUMENT', message: text },
          };
        }
        const outcome = await actor.call(actorName, (args ?? {}) as Readonly<Record<string, unknown>>, {
          ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
          ...(signal === undefined ? {} : { signal }),
        });
        options.onOutcome?.(outcome);
        return modelAnswerOf(outcome);
      },
    };
  });
  return { tools, names };
}

/** Model APIs want an object schema with `properties`; `$schema` is said by none of them. */
function objectSchemaOf(schema: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const { $schema: _dialect, ...rest } = schema;
  return {
    ...rest,
    type: 'object',
    properties: typeof rest.properties === 'object' && rest.properties !== null ? rest.properties : {},
  };
}
