/**
 * The LangChain bridge in LangGraph's own loop: the prebuilt `createReactAgent` with a scripted
 * chat model (a small `BaseChatModel` that answers tool calls in turn and keeps what it was sent)
 * calls a read tool (text and an image), a write tool in a sandbox (checkpointed, rolled back
 * through the runtime), a tool the actor may not call (the model reads the refusal, the loop goes
 * on) and a write that fails (rolled back); every tool name bound to the model matches the model
 * APIs' pattern.
 */
import { BaseChatModel, type BindToolsInput } from '@langchain/core/language_models/chat_models';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { langchainTools, type ModelAnswer } from '../../src/frameworks/langchain.js';
import { MODEL_NAME, PNG, openNotesActor, sandboxFile, type NotesActor } from '../support/frameworks-actor.js';
import { anyOf, stringMatching } from '../support/matchers.js';

let notes: NotesActor;
beforeAll(async () => {
  notes = await openNotesActor();
});
afterAll(() => notes.close());

/** A chat model that makes one scripted tool call a turn, then says "done". */
class ScriptedChatModel extends BaseChatModel {
  /** The tool definitions bound to the model, as a provider would send them (OpenAI form). */
  readonly sentTools: { name: string; parameters: unknown }[] = [];
  readonly seen: BaseMessage[][] = [];
  constructor(private readonly script: readonly { name: string; args: Record<string, unknown> }[]) {
    super({});
  }
  _llmType(): string {
    return 'scripted';
  }
  override bindTools(tools: BindToolsInput[]): this {
    for (const tool of tools) {
      const { function: definition } = convertToOpenAITool(tool);
      this.sentTools.push({ name: definition.name, parameters: definition.parameters });
    }
    return this;
  }
  _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.seen.push(messages);
    const next = this.script[this.seen.length - 1];
    const message = next
      ? new AIMessage({
          content: '',
          tool_calls: [{ id: `call-${this.seen.length}`, name: next.name, args: next.args, type: 'tool_call' }],
        })
      : new AIMessage('done');
    return Promise.resolve({ generations: [{ message, text: typeof message.content === 'string' ? message.content : '' }] });
  }
}

describe('an actor in LangGraph', () => {
  it("runs createReactAgent's tool loop through actor.call: read, sandboxed write, refusal and rollback", async () => {
    const llm = new ScriptedChatModel([
      { name: 'notes__notes_read', args: { path: 'todo.md' } },
      { name: 'notes__notes_write', args: { path: 'todo.md', content: 'buy oat milk\n' } },
      { name: 'notes__notes_purge', args: {} },
      { name: 'notes__notes_write_then_fail', args: { path: 'todo.md', content: 'broken' } },
    ]);
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- its replacement, createAgent, is in the `langchain` package, not a dependency; LangGraph's prebuilt loop is the one this bridge is tested in
    const agent = createReactAgent({ llm, tools: langchainTools(notes.actor) });
    const { messages } = await agent.invoke({ messages: [{ role: 'user', content: 'Tidy my notes' }] });
    expect(messages.at(-1)!.content).toBe('done');

    const sent = llm.sentTools.map((tool) => tool.name).sort();
    expect(sent).toEqual(['notes__notes_purge', 'notes__notes_read', 'notes__notes_write', 'notes__notes_write_then_fail']);
    for (const name of sent) expect(name).toMatch(MODEL_NAME);
    expect(llm.sentTools.find((t) => t.name === 'notes__notes_write')!.parameters).toMatchObject({
      type: 'object',
      required: ['path', 'content'],
    });

    // What the model read back at each turn: the last message it was given.
    const toolMessage = (turn: number): ToolMessage => {
      const message = llm.seen[turn]!.at(-1)!;
      if (!ToolMessage.isInstance(message)) throw new Error(`the model was not given a tool message at turn ${turn}`);
      return message;
    };
    expect(toolMessage(1)).toMatchObject({
      status: 'success',
      tool_call_id: 'call-1',
      content: [
        { type: 'text', text: 'buy milk\n' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
      ],
    });
    expect(toolMessage(2)).toMatchObject({ status: 'success', content: 'wrote 13 characters' });
    expect(toolMessage(3)).toMatchObject({ status: 'error', content: stringMatching(/^The call was refused \(PERMISSION_DENIED\): /) });
    expect(toolMessage(4)).toMatchObject({
      status: 'error',
      content: stringMatching(/^The call failed and its changes were rolled back \(TOOL_FAILED\): .*the disk quota ran out/),
    });
    expect(notes.purges()).toBe(0);
    expect(notes.events.some((e) => e.type === 'permission.denied' && e.tool === 'notes/notes_purge')).toBe(true);

    // The write is checkpointed in the sandbox (the artifact says where), and the runtime rolls it back.
    const write = toolMessage(2).artifact as ModelAnswer;
    expect(write).toMatchObject({ ok: true, status: 'committed', checkpointId: anyOf(String) });
    expect(sandboxFile(notes, 'todo.md')).toBe('buy oat milk\n');
    expect(readFileSync(join(notes.project, 'todo.md'), 'utf8')).toBe('buy milk\n');
    await notes.actor.rollback(write.checkpointId);
    expect(sandboxFile(notes, 'todo.md')).toBe('buy milk\n');
  });

  it('answers a direct invoke with the content, and a refusal with its text', async () => {
    const [purge] = langchainTools(notes.actor, { filter: (tool) => tool.name === 'notes/notes_purge' });
    expect(await purge!.invoke({})).toMatch(/^The call was refused \(PERMISSION_DENIED\)/);
  });
});
