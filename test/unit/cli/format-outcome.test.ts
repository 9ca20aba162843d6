import { describe, expect, it } from 'vitest';
import { formatOutcome, outcomeJson, resultText } from '../../../src/cli/format-outcome.js';
import { McpActorsError } from '../../../src/errors/mcp-actors-error.js';
import type { CallOutcome } from '../../../src/tool-call/tool-call-io.js';
import type { ToolResult } from '../../../src/registry/tool-descriptor.js';
import type { ToolContentBlock } from '../../../src/registry/tool-content.js';

function result(content: readonly ToolContentBlock[], extra: Partial<ToolResult> = {}): ToolResult {
  return { success: true, content, data: undefined, error: undefined, errorCode: undefined, durationMs: 1, ...extra };
}

function outcome(extra: Partial<CallOutcome>): CallOutcome {
  return {
    callId: 'helper:acme:1#1',
    tool: 'fixture/echo',
    status: 'committed',
    result: undefined,
    changes: [],
    checkpointId: undefined,
    error: undefined,
    durationMs: 12.4,
    ...extra,
  };
}

describe('formatOutcome', () => {
  it('prints the status line, a blank line and what the tool answered', () => {
    expect(formatOutcome(outcome({ result: result([{ type: 'text', text: 'hi' }]) }))).toBe('fixture/echo: committed (12 ms)\n\nhi\n');
  });

  it('prints checkpoint, changes, error and note of a rolled-back call', () => {
    const text = formatOutcome(
      outcome({
        tool: 'fx/write_then_fail',
        status: 'rolled-back',
        checkpointId: 'ckpt-3',
        changes: [
          { path: 'src/main.py', kind: 'modified' },
          { path: 'new.txt', kind: 'added' },
        ],
        error: new McpActorsError('TOOL_FAILED', 'tool "write_then_fail" answered with an error: boom'),
        note: 'the sandbox was restored; effects outside the sandbox were not undone',
        durationMs: 1500,
      }),
    );
    expect(text).toBe(
      [
        'fx/write_then_fail: rolled-back (1.5 s)',
        'checkpoint: ckpt-3',
        'changes:',
        '  modified  src/main.py',
        '  added     new.txt',
        'error [TOOL_FAILED]: tool "write_then_fail" answered with an error: boom',
        'note: the sandbox was restored; effects outside the sandbox were not undone',
        '',
      ].join('\n'),
    );
  });

  it("does not repeat a failed tool's text when the error message already says it", () => {
    const text = formatOutcome(
      outcome({
        status: 'failed',
        result: result([{ type: 'text', text: 'boom' }], { success: false }),
        error: new McpActorsError('TOOL_FAILED', 'tool "fail" answered with an error: boom'),
      }),
    );
    expect(text.match(/boom/g)).toHaveLength(1);
  });

  it('adds the diff of the sandbox and what --apply wrote, or why it wrote nothing', () => {
    const diff = 'diff --git a/NOTES.md b/NOTES.md\n-hello\n+changed\n';
    const applied = formatOutcome(outcome({}), { project: '/p', diff, applied: ['NOTES.md'] });
    expect(applied).toContain(
      '\ndiff of the sandbox of /p:\ndiff --git a/NOTES.md b/NOTES.md\n-hello\n+changed\napplied to /p: NOTES.md\n',
    );
    const refused = formatOutcome(outcome({ status: 'rejected' }), {
      project: '/p',
      diff: '',
      notApplied: 'the call ended rejected, so nothing was written',
    });
    expect(refused).toContain('the sandbox of /p has no changes\nnot applied: the call ended rejected, so nothing was written\n');
  });

  it('gives the outcome as plain data for --json, the error as code, message and details', () => {
    const error = new McpActorsError('PERMISSION_DENIED', 'no', { details: { rule: 'permissions.execute: ask' } });
    expect(JSON.parse(JSON.stringify(outcomeJson(outcome({ status: 'rejected', error }))))).toEqual({
      callId: 'helper:acme:1#1',
      tool: 'fixture/echo',
      status: 'rejected',
      durationMs: 12.4,
      changes: [],
      error: { code: 'PERMISSION_DENIED', message: 'no', details: { rule: 'permissions.execute: ask' } },
    });
  });
});

describe('resultText', () => {
  it('shows text blocks as they are and other blocks in one line each', () => {
    const text = resultText(
      result([
        { type: 'text', text: 'a' },
        { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        { type: 'resource_link', uri: 'file:///x', name: 'x' },
        { type: 'resource', resource: { uri: 'file:///y', text: 'inside' } },
      ]),
    );
    expect(text).toBe('a\n[image image/png, 3 bytes]\n[resource link file:///x]\ninside');
  });

  it('shows structured content as JSON when there is no text', () => {
    expect(resultText(result([], { data: { sum: 3 } }))).toBe('{\n  "sum": 3\n}');
  });
});
