/**
 * `mcp-actors/langchain`: an actor's tools as LangChain tools — for LangGraph's `ToolNode` and
 * `createReactAgent`, or any chat model's `bindTools`. Needs `@langchain/core` (an optional peer
 * dependency).
 *
 * Each tool is a `DynamicStructuredTool` named as model APIs accept (`files/read_file` →
 * `files__read_file`) whose input schema is the tool's JSON Schema; its call goes through
 * `actor.call`. Called with a tool call (as `ToolNode` does), it answers a `ToolMessage`: a
 * committed call's content (a string, or text/image/audio/file blocks), and a refused, rolled-back
 * or failed call as `status: 'error'` with the reason as its text — never a throw, so the agent loop
 * goes on and the model reads why. The message's `artifact` is the model answer (status,
 * checkpoint, error code).
 */
import { ToolMessage } from '@langchain/core/messages';
import { DynamicStructuredTool, type ToolRunnableConfig } from '@langchain/core/tools';
import type { RunnableConfig } from '@langchain/core/runnables';
import { bridgeTools, type BridgeOptions, type BridgedTool, type ToolActor } from './bridged-tools.js';
import type { ModelAnswer, ModelBlock } from './model-answer.js';

export type { BridgeOptions, ToolActor } from './bridged-tools.js';
export type { ModelAnswer, ModelBlock } from './model-answer.js';
export { MODEL_TOOL_NAME, mapToolNames, modelToolName, type ToolNameMap } from './tool-names.js';

/** A LangChain content block, in @langchain/core 1.x's standard form. */
type LangChainBlock =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'file'; data: string; mimeType: string };

/**
 * The actor's current tools as LangChain tools. A tool list that changes (a server's
 * `tools/list_changed`, a server that recovered) is read again by calling this again: LangGraph
 * binds tools when the graph is built, so build the agent (or its `ToolNode`) per run.
 *
 * @example
 * import { createReactAgent } from '@langchain/langgraph/prebuilt';
 * import { langchainTools } from 'mcp-actors/langchain';
 *
 * const agent = createReactAgent({ llm, tools: langchainTools(actor) });
 * const { messages } = await agent.invoke({ messages: [{ role: 'user', content: 'Tidy the notes' }] });
 */
export function langchainTools(actor: ToolActor, options: BridgeOptions = {}): DynamicStructuredTool[] {
  return bridgeTools(actor, options).tools.map(langchainTool);
}

function langchainTool(bridged: BridgedTool): DynamicStructuredTool {
  return new DynamicStructuredTool({
    name: bridged.modelName,
    description: bridged.description,
    schema: bridged.inputSchema,
    metadata: { mcpActorsTool: bridged.actorName },
    func: async (input: unknown, _runManager?: unknown, config?: RunnableConfig) => {
      const answer = await bridged.run(input, config?.signal);
      const toolCallId = (config as ToolRunnableConfig | undefined)?.toolCall?.id;
      // Without a tool call (a direct `invoke(args)`), the content alone, as LangChain tools answer.
      if (toolCallId === undefined) return answer.ok ? contentOf(answer) : answer.text;
      return new ToolMessage({
        content: answer.ok ? contentOf(answer) : answer.text,
        status: answer.ok ? 'success' : 'error',
        tool_call_id: toolCallId,
        name: bridged.modelName,
        artifact: answer,
      });
    },
  });
}

/** Text alone as a string (what every chat model takes); with media, standard content blocks. */
function contentOf(answer: ModelAnswer): string | LangChainBlock[] {
  if (answer.blocks.every((block) => block.type === 'text')) return answer.text;
  return answer.blocks.map(langchainBlock);
}

function langchainBlock(block: ModelBlock): LangChainBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
    case 'audio':
      return { type: block.type, data: block.data, mimeType: block.mimeType };
    case 'file':
      return { type: 'file', data: block.data, mimeType: block.mimeType };
  }
}
