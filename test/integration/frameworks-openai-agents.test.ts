/**
 * The OpenAI Agents bridge in the SDK's own loop: a `Runner` with a scripted `Model` (the SDK
 * exports no fake one) calls a read tool (text and an image), a write tool in a sandbox
 * (checkpointed, rolled back through the runtime), a tool the actor may not call (the model reads
 * the refusal, the run goes on) and a write that fails (rolled back); every tool name sent to the
 * model matches the model APIs' pattern.
 */
import { Agent, Runner, Usage, type Model, type ModelRequest, type ModelResponse } from '@openai/agents';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAiAgentsTools } from '../../src/frameworks/openai-agents.js';
import { MODEL_NAME, PNG, openNotesActor, sandboxFile, type NotesActor } from '../support/frameworks-actor.js';
import { anyOf, stringMatching } from '../support/matchers.js';

let notes: NotesActor;
beforeAll(async () => {
  notes = await openNotesActor();
});
afterAll(() => notes.close());

/** A model that makes one scripted function call a turn, then says "done"; it keeps every request. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly script: readonly { name: string; args: Record<string, unknown> }[]) {}
  getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const turn = this.requests.length;
    const next = this.script[turn - 1];
    return Promise.resolve({
      usage: new Usage({ requests: 1 }),
      responseId: `response-${turn}`,
      output: next
        ? [{ type: 'function_call', callId: `call-${turn}`, name: next.name, arguments: JSON.stringify(next.args), status: 'completed' }]
        : [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }],
    });
  }
  getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the scripted model does not stream');
  }
}

describe('an actor in the OpenAI Agents SDK', () => {
  it("runs the Runner's tool loop through actor.call: read, sandboxed write, refusal and rollback", async () => {
    const model = new ScriptedModel([
      { name: 'notes__notes_read', args: { path: 'todo.md' } },
      { name: 'notes__notes_write', args: { path: 'todo.md', content: 'buy oat milk\n' } },
      { name: 'notes__notes_purge', args: {} },
      { name: 'notes__notes_write_then_fail', args: { path: 'todo.md', content: 'broken' } },
    ]);
    const agent = new Agent({ name: 'editor', instructions: 'Tidy the notes', model, tools: openAiAgentsTools(notes.actor) });
    const runner = new Runner({ tracingDisabled: true });
    const result = await runner.run(agent, 'Tidy my notes', { maxTurns: 8 });
    expect(result.finalOutput).toBe('done');

    const sent = model.requests[0]!.tools.map((tool) => (tool as { name?: string }).name ?? '').sort();
    expect(sent).toEqual(['notes__notes_purge', 'notes__notes_read', 'notes__notes_write', 'notes__notes_write_then_fail']);
    for (const name of sent) expect(name).toMatch(MODEL_NAME);

    // What the model read back at each turn: the function call result it was given last.
    const toolOutput = (turn: number): unknown => {
      const input = model.requests[turn]!.input;
      const last = Array.isArray(input) ? input.at(-1) : undefined;
      expect(last).toMatchObject({ type: 'function_call_result', callId: `call-${turn}` });
      return (last as { output: unknown }).output;
    };
    expect(toolOutput(1)).toEqual([
      { type: 'input_text', text: 'buy milk\n' },
      { type: 'input_image', image: `data:image/png;base64,${PNG}` },
    ]);
    expect(toolOutput(2)).toEqual({ type: 'text', text: 'wrote 13 characters' });
    expect(toolOutput(3)).toEqual({ type: 'text', text: stringMatching(/^The call was refused \(PERMISSION_DENIED\): /) });
    expect(toolOutput(4)).toEqual({
      type: 'text',
      text: stringMatching(/^The call failed and its changes were rolled back \(TOOL_FAILED\): .*the disk quota ran out/),
    });
    expect(notes.purges()).toBe(0);
    expect(notes.events.some((e) => e.type === 'permission.denied' && e.tool === 'notes/notes_purge')).toBe(true);

    // The write went to the sandbox only and is checkpointed; the runtime rolls it back.
    const write = notes.events.find((e) => e.type === 'call.ended' && e.tool === 'notes/notes_write');
    expect(write).toMatchObject({ status: 'committed', checkpointId: anyOf(String) });
    expect(sandboxFile(notes, 'todo.md')).toBe('buy oat milk\n');
    expect(readFileSync(join(notes.project, 'todo.md'), 'utf8')).toBe('buy milk\n');
    await notes.actor.rollback((write as { checkpointId: string }).checkpointId);
    expect(sandboxFile(notes, 'todo.md')).toBe('buy milk\n');
  });
});
