import { describe, expect, it } from 'vitest';
import { toMcpToolResult } from '../../../src/adapter/tool-result.js';

const tool = { name: 'add', outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] } };

describe('toMcpToolResult', () => {
  it('reads an isError answer as SERVER_ERROR with the text of content[0]', () => {
    const result = toMcpToolResult({ isError: true, content: [{ type: 'text', text: 'disk full' }] }, tool, 1);
    // Worded once, naming the tool (the call path adds no prefix of its own).
    expect(result).toMatchObject({
      success: false,
      errorCode: 'SERVER_ERROR',
      error: 'tool "add" answered with an error: disk full',
      durationMs: 1,
    });
    expect(result.failure).toMatchObject({ code: 'TOOL_FAILED', message: result.error, details: { kind: 'SERVER_ERROR' } });
  });

  it('keeps the kind of failure a server declares in _meta.errorCode, and ignores codes it does not know', () => {
    const declared = toMcpToolResult(
      { isError: true, content: [{ type: 'text', text: 'bad args' }], _meta: { errorCode: 'VALIDATION' } },
      tool,
      1,
    );
    expect(declared).toMatchObject({ errorCode: 'VALIDATION', error: 'bad args' });
    const unknown = toMcpToolResult({ isError: true, content: [{ type: 'text', text: 'x' }], _meta: { errorCode: 'NOPE' } }, tool, 1);
    expect(unknown.errorCode).toBe('SERVER_ERROR');
  });

  it('checks structured content against the output schema', () => {
    expect(toMcpToolResult({ content: [], structuredContent: { sum: 3 } }, tool, 1).success).toBe(true);
    expect(toMcpToolResult({ content: [], structuredContent: { sum: 'x' } }, tool, 1).errorCode).toBe('OUTPUT_VALIDATION');
    expect(toMcpToolResult({ content: [] }, tool, 1).errorCode).toBe('OUTPUT_VALIDATION');
  });
});
