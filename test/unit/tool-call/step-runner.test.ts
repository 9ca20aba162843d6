/**
 * A cancel that arrives while a step without a cancel move runs (rewriting paths, taking the
 * checkpoint: they finish first) is kept by the one step runner and taken by the next step that has
 * one (invoking), on the fast path and through the machine alike: the tool never runs.
 */
import { describe, expect, it } from 'vitest';
import { executeToolCall } from '../../../src/tool-call/execute-tool-call.js';
import type { ToolCallSteps } from '../../../src/tool-call/tool-call-steps.js';
import { testTool } from '../../support/descriptors.js';
import { scriptedSteps } from '../../support/fake-tool-call-steps.js';

/** Steps whose `which` step cancels the call as it begins, then finishes. */
function cancellingIn(which: 'rewriteArgs' | 'checkpoint', caller: AbortController, log: string[]): ToolCallSteps {
  const steps = scriptedSteps({}, log);
  if (which === 'rewriteArgs') {
    return {
      ...steps,
      rewriteArgs: (input, args) => {
        caller.abort('user pressed stop');
        return steps.rewriteArgs(input, args);
      },
    };
  }
  return {
    ...steps,
    checkpoint: (input) => {
      caller.abort('user pressed stop');
      return steps.checkpoint(input);
    },
  };
}

async function run(toolName: string, which: 'rewriteArgs' | 'checkpoint', path: 'fast path' | 'machine') {
  const log: string[] = [];
  const caller = new AbortController();
  const readOnly = toolName.startsWith('read');
  const outcome = await executeToolCall(
    cancellingIn(which, caller, log),
    {
      callId: 'c1',
      tool: testTool(toolName, { overrides: { readOnly }, checkpointable: !readOnly }),
      args: { path: 'src/main.py' },
      timeoutMs: 1_000,
      sandboxed: true,
      startedAt: Date.now(),
    },
    { signal: caller.signal, ...(path === 'machine' ? { inspect: () => undefined } : {}) },
  );
  return { outcome, log };
}

describe('a cancel while a step that finishes first runs', () => {
  for (const path of ['fast path', 'machine'] as const) {
    it(`is taken by invoking on the ${path}: the tool never runs (cancelled while rewriting paths)`, async () => {
      const { outcome, log } = await run('read_file', 'rewriteArgs', path);
      expect(outcome.error?.code).toBe('CANCELLED');
      expect(outcome.error?.message).toContain('user pressed stop');
      expect(log).not.toContain('invoke');
      expect(log).toContain('unlock');
    });
  }

  it('is taken by invoking through the machine for a call that writes: the tool never runs and the checkpoint is restored', async () => {
    const { outcome, log } = await run('write_file', 'checkpoint', 'machine');
    expect(outcome.error?.code).toBe('CANCELLED');
    expect(outcome.status).toBe('rolled-back');
    expect(log).not.toContain('invoke');
    expect(log).toContain('unlock');
  });
});
