/**
 * `mcp-actors/openai-agents`: an actor's tools as OpenAI Agents SDK function tools, for an
 * `Agent`'s `tools` and a `Runner`. Needs `@openai/agents` (an optional peer dependency).
 *
 * Each tool is a non-strict `tool()` named as model APIs accept (`files/read_file` →
 * `files__read_file`) whose parameters are the tool's JSON Schema; its call goes through
 * `actor.call`. A committed call answers its content (text, or text and image/file items); a
 * refused, rolled-back or failed call answers the reason as text starting "The call was refused",
 * "... failed ..." — never a throw, so the run goes on and the model reads why.
 */
import { tool, type FunctionTool } from '@openai/agents';
import { bridgeTools, type BridgeOptions, type BridgedTool, type ToolActor } from './bridged-tools.js';
import type { ModelAnswer, ModelBlock } from './model-answer.js';

export type { BridgeOptions, ToolActor } from './bridged-tools.js';
export type { ModelAnswer, ModelBlock } from './model-answer.js';
export { MODEL_TOOL_NAME, mapToolNames, modelToolName, type ToolNameMap } from './tool-names.js';

/** What a function tool may answer besides a string (the SDK's structured tool outputs). */
type AgentsOutputItem =
  | { type: 'text'; text: string }
  | { type: 'image'; image: { data: string; mediaType: string } }
  | { type: 'file'; file: { data: string; mediaType: string; filename: string } };

/** The JSON Schema `parameters` of a non-strict function tool. */
type NonStrictParameters = { type: 'object'; properties: Record<string, never>; required: string[]; additionalProperties: true };

/** One actor tool as a function tool (its parameters: the tool's JSON Schema). */
export type ActorFunctionTool = FunctionTool<unknown, NonStrictParameters>;

/**
 * The actor's current tools as function tools. The Runner reads `agent.tools` at every turn, so a
 * tool list that changed (a server's `tools/list_changed`, a server that recovered) reaches the
 * model once you assign `agent.tools = openAiAgentsTools(actor)` again (before a run, or between
 * turns).
 *
 * @example
 * import { Agent, run } from '@openai/agents';
 * import { openAiAgentsTools } from 'mcp-actors/openai-agents';
 *
 * const agent = new Agent({ name: 'editor', instructions: 'Tidy the notes', tools: openAiAgentsTools(actor) });
 * const result = await run(agent, 'Tidy the notes');
 */
export function openAiAgentsTools(actor: ToolActor, options: BridgeOptions = {}): ActorFunctionTool[] {
  return bridgeTools(actor, options).tools.map(agentsTool);
}

function agentsTool(bridged: BridgedTool): ActorFunctionTool {
  return tool({
    name: bridged.modelName,
    description: bridged.description,
    // Non-strict: the tool's own schema as it is (strict mode would demand every property required).
    parameters: bridged.inputSchema as unknown as NonStrictParameters,
    strict: false,
    execute: async (input, _context, details) => outputOf(await bridged.run(input, details?.signal)),
  });
}

function outputOf(answer: ModelAnswer): string | AgentsOutputItem[] {
  if (!answer.ok || answer.blocks.every((block) => block.type === 'text')) return answer.text;
  return answer.blocks.map(outputItem);
}

function outputItem(block: ModelBlock): AgentsOutputItem {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return { type: 'image', image: { data: block.data, mediaType: block.mimeType } };
    case 'audio':
    case 'file':
      return { type: 'file', file: { data: block.data, mediaType: block.mimeType, filename: filenameOf(block) } };
  }
}

function filenameOf(block: Extract<ModelBlock, { type: 'audio' | 'file' }>): string {
  const fromUri = block.type === 'file' && block.uri ? block.uri.split('/').pop() : undefined;
  return fromUri || `${block.type}.${block.mimeType.split('/')[1] ?? 'bin'}`;
}
