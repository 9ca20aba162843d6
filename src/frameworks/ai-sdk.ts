/**
 * `mcp-actors/ai-sdk`: an actor's tools as AI SDK tools (`ai` 6 on Node 20+, `ai` 7 on Node 22+),
 * for `generateText`, `streamText` and `ToolLoopAgent`. Needs `ai` (an optional peer dependency).
 *
 * The tool set is keyed by names model APIs accept (`files/read_file` → `files__read_file`); each
 * tool is a `dynamicTool` whose input schema is the tool's JSON Schema through `jsonSchema()`, and
 * whose call goes through `actor.call`. Its output is the model answer (status, content blocks,
 * checkpoint, error code — JSON, so it can be stored with the messages); `toModelOutput` shows the
 * model a committed call's content (text, or text and images/files) and a refused, rolled-back or
 * failed call as `error-text` with the reason — never a thrown error.
 */
import { dynamicTool, jsonSchema, type Tool } from 'ai';
import { bridgeTools, type BridgeOptions, type BridgedTool, type ToolActor } from './bridged-tools.js';
import type { ModelAnswer, ModelBlock } from './model-answer.js';

export type { BridgeOptions, ToolActor } from './bridged-tools.js';
export type { ModelAnswer, ModelBlock } from './model-answer.js';
export { MODEL_TOOL_NAME, mapToolNames, modelToolName, type ToolNameMap } from './tool-names.js';

/** The AI SDK's tool result output, as far as these tools make it. */
type ToolModelOutput =
  | { type: 'text'; value: string }
  | { type: 'error-text'; value: string }
  | {
      type: 'content';
      value: ({ type: 'text'; text: string } | { type: 'image-data' | 'file-data'; data: string; mediaType: string })[];
    };

/**
 * The actor's current tools as an AI SDK tool set. The AI SDK takes `tools` per call: pass
 * `aiSdkTools(actor)` to each `generateText` / `streamText`, and a tool list that changed (a
 * server's `tools/list_changed`, a server that recovered) is there at the next call.
 *
 * @example
 * import { generateText, stepCountIs } from 'ai';
 * import { aiSdkTools } from 'mcp-actors/ai-sdk';
 *
 * const { text } = await generateText({ model, tools: aiSdkTools(actor), stopWhen: stepCountIs(8), prompt: 'Tidy the notes' });
 */
export function aiSdkTools(actor: ToolActor, options: BridgeOptions = {}): Record<string, Tool<unknown, ModelAnswer>> {
  return Object.fromEntries(bridgeTools(actor, options).tools.map((bridged) => [bridged.modelName, aiSdkTool(bridged)]));
}

function aiSdkTool(bridged: BridgedTool): Tool<unknown, ModelAnswer> {
  return dynamicTool({
    description: bridged.description,
    inputSchema: jsonSchema(bridged.inputSchema as Parameters<typeof jsonSchema>[0]),
    execute: (input, { abortSignal }) => bridged.run(input, abortSignal),
    toModelOutput: ({ output }) => modelOutputOf(output as ModelAnswer),
  }) as Tool<unknown, ModelAnswer>;
}

function modelOutputOf(answer: ModelAnswer): ToolModelOutput {
  if (!answer.ok) return { type: 'error-text', value: answer.text };
  if (answer.blocks.every((block) => block.type === 'text')) return { type: 'text', value: answer.text };
  return { type: 'content', value: answer.blocks.map(contentPart) };
}

// `image-data` is what `ai` 6 providers read for an image; `ai` 7 still takes it (as `file-data`).
function contentPart(
  block: ModelBlock,
): { type: 'text'; text: string } | { type: 'image-data' | 'file-data'; data: string; mediaType: string } {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return { type: 'image-data', data: block.data, mediaType: block.mimeType };
    case 'audio':
    case 'file':
      return { type: 'file-data', data: block.data, mediaType: block.mimeType };
  }
}
