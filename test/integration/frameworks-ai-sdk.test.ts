/**
 * The AI SDK bridge in the AI SDK's own loop: `generateText` with a scripted `MockLanguageModelV3`
 * calls a read tool (text and an image), a write tool in a sandbox (checkpointed, rolled back
 * through the runtime), a tool the actor may not call (the model reads the refusal) and a write
 * that fails (rolled back); every tool name the model is sent matches the model APIs' pattern.
 */
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { aiSdkTools, modelToolName, type ModelAnswer } from '../../src/frameworks/ai-sdk.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { fixtureServerPath } from '../../src/testing/fixture.js';
import { MODEL_NAME, PNG, openNotesActor, sandboxFile, type NotesActor } from '../support/frameworks-actor.js';
import { anyOf, stringMatching } from '../support/matchers.js';

let notes: NotesActor;
beforeAll(async () => {
  notes = await openNotesActor();
});
afterAll(() => notes.close());

type CallOptions = Parameters<MockLanguageModelV3['doGenerate']>[0];
type Content = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>['content'][number];

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model that makes one tool call a step, then says "done"; it keeps every request it was sent. */
function scriptedModel(calls: readonly { name: string; input: Record<string, unknown> }[]) {
  const requests: CallOptions[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: (options) => {
      requests.push(options);
      const next = calls[requests.length - 1];
      const content: Content[] = next
        ? [{ type: 'tool-call', toolCallId: `call-${requests.length}`, toolName: next.name, input: JSON.stringify(next.input) }]
        : [{ type: 'text', text: 'done' }];
      return Promise.resolve({ content, finishReason: { unified: next ? 'tool-calls' : 'stop', raw: undefined }, usage, warnings: [] });
    },
  });
  return { model, requests };
}

describe('an actor in the AI SDK', () => {
  it("runs generateText's tool loop through actor.call: read, sandboxed write, refusal and rollback", async () => {
    const { model, requests } = scriptedModel([
      { name: 'notes__notes_read', input: { path: 'todo.md' } },
      { name: 'notes__notes_write', input: { path: 'todo.md', content: 'buy oat milk\n' } },
      { name: 'notes__notes_purge', input: {} },
      { name: 'notes__notes_write_then_fail', input: { path: 'todo.md', content: 'broken' } },
    ]);
    const result = await generateText({ model, tools: aiSdkTools(notes.actor), stopWhen: stepCountIs(8), prompt: 'Tidy my notes' });
    expect(result.text).toBe('done');

    // The tool definitions the model was sent: every name as model APIs accept it.
    const sent = (requests[0]!.tools ?? []).map((tool) => tool.name);
    expect(sent.sort()).toEqual(['notes__notes_purge', 'notes__notes_read', 'notes__notes_write', 'notes__notes_write_then_fail']);
    for (const name of sent) expect(name).toMatch(MODEL_NAME);
    expect(requests[0]!.tools![0]).toMatchObject({ type: 'function', inputSchema: { type: 'object' } });

    // What the model read back, step by step (the tool result of the step before).
    const toolResult = (step: number) => {
      const message = requests[step]!.prompt.at(-1)!;
      expect(message.role).toBe('tool');
      const part = (message.content as readonly { type: string; output?: unknown }[])[0]!;
      return part.output;
    };
    expect(toolResult(1)).toEqual({
      type: 'content',
      value: [
        { type: 'text', text: 'buy milk\n' },
        { type: 'image-data', data: PNG, mediaType: 'image/png' },
      ],
    });
    expect(toolResult(2)).toEqual({ type: 'text', value: 'wrote 13 characters' });
    expect(toolResult(3)).toMatchObject({ type: 'error-text', value: stringMatching(/^The call was refused \(PERMISSION_DENIED\): /) });
    expect(toolResult(4)).toMatchObject({
      type: 'error-text',
      value: stringMatching(/^The call failed and its changes were rolled back \(TOOL_FAILED\): .*the disk quota ran out/),
    });

    // The refused tool never ran; the runtime audited the refusal.
    expect(notes.purges()).toBe(0);
    expect(notes.events.some((e) => e.type === 'permission.denied' && e.tool === 'notes/notes_purge')).toBe(true);

    // The write went to the sandbox only, is checkpointed, and the runtime rolls it back.
    const write = result.steps[1]!.toolResults[0]!.output as ModelAnswer;
    expect(write).toMatchObject({ ok: true, status: 'committed', checkpointId: anyOf(String) });
    expect(sandboxFile(notes, 'todo.md')).toBe('buy oat milk\n');
    expect(readFileSync(join(notes.project, 'todo.md'), 'utf8')).toBe('buy milk\n');
    await notes.actor.rollback(write.checkpointId);
    expect(sandboxFile(notes, 'todo.md')).toBe('buy milk\n');
  });

  it('hands over a tool list that changed at the next call, a renamed name mapped back to the tool', async () => {
    // A real server whose tool list changes: the fixture adds a tool named as no model API takes it.
    const runtime = await createRuntime({
      config: {
        servers: { fixture: { command: process.execPath, args: [fixtureServerPath()] } },
        skills: { fixture: { mcp_servers: ['fixture'] } },
        actors: { tinkerer: { skills: ['fixture'], permissions: { execute: 'allow' } } },
      },
    });
    try {
      const actor = await runtime.activate('tinkerer', { tenant: 'acme' });
      const first = scriptedModel([{ name: 'fixture__tools_add', input: { name: 'late.tool' } }]);
      await generateText({ model: first.model, tools: aiSdkTools(actor), stopWhen: stepCountIs(4), prompt: 'Add a tool' });
      expect(first.requests[0]!.tools!.map((tool) => tool.name)).not.toContain(modelToolName('fixture/late.tool'));
      await vi.waitFor(() => expect(actor.tools().map((tool) => tool.name)).toContain('fixture/late.tool'), { timeout: 10_000 });

      const late = modelToolName('fixture/late.tool');
      expect(late).toMatch(/^fixture__late_tool___[0-9a-f]{10}$/);
      const second = scriptedModel([{ name: late, input: {} }]);
      const result = await generateText({ model: second.model, tools: aiSdkTools(actor), stopWhen: stepCountIs(4), prompt: 'Use it' });
      const sent = second.requests[0]!.tools!.map((tool) => tool.name);
      expect(sent).toContain(late);
      for (const name of sent) expect(name).toMatch(MODEL_NAME);
      expect(result.steps[0]!.toolResults[0]!.output).toMatchObject({ ok: true, text: 'late.tool' });
    } finally {
      await runtime.shutdown();
    }
  });
});
