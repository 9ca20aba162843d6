/**
 * One builder for a tool call's failure: whatever source failed (an MCP server, an in-process tool,
 * a request the client threw), the result carries one error of the family with its code, its
 * finer kind in `details.kind`, its cause, and the message worded once.
 */
import { ErrorCode as McpErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { classifyRequestError } from '../../../src/client/classify-request-error.js';
import { isMcpActorsError, McpActorsError } from '../../../src/errors/mcp-actors-error.js';
import type { ServerConnection } from '../../../src/server/server-io.js';
import type { ToolResult } from '../../../src/registry/tool-descriptor.js';
import { toolFailedError } from '../../../src/tool-call/tool-call-errors.js';
import type { ToolCallInput } from '../../../src/tool-call/tool-call-io.js';
import { toolFailure, toolFailureOf } from '../../../src/tool-call/tool-failure.js';
import { testTool } from '../../support/descriptors.js';

const input = (): ToolCallInput => ({
  callId: 'c1',
  tool: testTool('echo'),
  args: {},
  timeoutMs: 1_000,
  sandboxed: false,
  startedAt: Date.now(),
});
const open: Pick<ServerConnection, 'endedWith'> = { endedWith: () => undefined };

describe('toolFailure', () => {
  it('builds a failed result whose error, kind and failure say the same thing', () => {
    const cause = new Error('disk full');
    const violations = [{ path: '/a', message: 'must be string' }];
    const result = toolFailure(performance.now(), 'VALIDATION', 'validation failed for "echo": /a must be string', {
      cause,
      violations,
      details: { server: 's' },
    });
    expect(result).toMatchObject({
      success: false,
      content: [],
      data: undefined,
      error: 'validation failed for "echo": /a must be string',
      errorCode: 'VALIDATION',
      violations,
    });
    expect(isMcpActorsError(result.failure)).toBe(true);
    expect(result.failure).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: result.error,
      details: { kind: 'VALIDATION', server: 's', violations },
    });
    expect(result.failure?.cause).toBe(cause);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('gives every kind its public ErrorCode', () => {
    const codeOf = (kind: Parameters<typeof toolFailure>[1]) => toolFailure(0, kind, 'x', { durationMs: 1 }).failure?.code;
    expect(codeOf('SERVER_ERROR')).toBe('TOOL_FAILED');
    expect(codeOf('OUTPUT_VALIDATION')).toBe('TOOL_FAILED');
    expect(codeOf('VALIDATION')).toBe('INVALID_ARGUMENT');
    expect(codeOf('REQUEST_TIMEOUT')).toBe('REQUEST_TIMEOUT');
    expect(codeOf('NOT_FOUND')).toBe('NOT_FOUND');
  });

  it('makes the message the one text block when asked, and keeps the given content otherwise', () => {
    expect(toolFailure(0, 'SERVER_ERROR', 'boom', { messageAsText: true }).content).toEqual([{ type: 'text', text: 'boom' }]);
    const content = [{ type: 'text' as const, text: 'the server said so' }];
    expect(toolFailure(0, 'SERVER_ERROR', 'boom', { content, durationMs: 3 })).toMatchObject({ content, durationMs: 3 });
  });
});

describe('toolFailureOf a request that threw', () => {
  // What the SDK's client makes of a server's JSON-RPC error: its own prefix on the server's (prefixed) message.
  const wire = new McpError(
    McpErrorCode.InvalidParams,
    new McpError(McpErrorCode.InvalidParams, 'Invalid arguments for tool echo').message,
    { field: 'message' },
  );
  const thrown = classifyRequestError(wire, { server: 'fx', what: 'call "echo"', timeoutMs: 1_000, signal: undefined, connection: open });

  it("keeps the server's JSON-RPC code and the SDK's error as the cause, and says the message once", () => {
    const result = toolFailureOf(performance.now(), thrown);
    expect(result.errorCode).toBe('SERVER_ERROR');
    expect(result.failure).toMatchObject({
      code: 'TOOL_FAILED',
      details: { kind: 'SERVER_ERROR', mcpCode: -32602, server: 'fx', data: { field: 'message' } },
    });
    expect(result.failure?.cause).toBe(wire);
    expect(result.error).toBe('server "fx" answered call "echo" with error -32602: Invalid arguments for tool echo');
  });

  it('reaches the public boundary as the same error: code, message, details and cause, with the tool named in details', () => {
    const result: ToolResult = toolFailureOf(performance.now(), thrown);
    const error = toolFailedError(input(), result);
    expect(error).toMatchObject({
      code: 'TOOL_FAILED',
      message: result.error,
      details: { tool: 'fx/echo', kind: 'SERVER_ERROR', mcpCode: -32602 },
    });
    expect(error.cause).toBe(wire);
    expect(error.message.match(/MCP error|-32602|SERVER_ERROR|TOOL_FAILED|PROTOCOL_ERROR/g)).toEqual(['-32602']);
  });

  it('takes anything else as its own cause', () => {
    const plain = new Error('socket hang up');
    expect(toolFailureOf(0, plain)).toMatchObject({ errorCode: 'SERVER_ERROR', error: 'socket hang up' });
    expect(toolFailureOf(0, plain).failure?.cause).toBe(plain);
    const refused = new McpActorsError('INVALID_ARGUMENT', 'timeoutMs must be a positive number');
    expect(toolFailureOf(0, refused).failure).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'timeoutMs must be a positive number' });
    expect(toolFailureOf(0, refused).failure?.cause).toBe(refused);
  });

  it("names the tool once at the boundary for a host handler's result that carries no failure", () => {
    const bare: ToolResult = { success: false, content: [], data: undefined, error: 'it failed', errorCode: 'SERVER_ERROR', durationMs: 1 };
    expect(toolFailedError(input(), bare)).toMatchObject({
      code: 'TOOL_FAILED',
      message: '"fx/echo" failed: it failed',
      details: { tool: 'fx/echo', kind: 'SERVER_ERROR' },
    });
  });
});
