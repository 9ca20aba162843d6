import { ErrorCode as McpErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/errors/codes.js';
import { McpActorsError } from '../../../src/errors/mcp-actors-error.js';
import { ToolErrorCode, type ToolResult } from '../../../src/registry/tool-descriptor.js';
import { toolFailedError } from '../../../src/tool-call/tool-call-errors.js';
import { toolErrorCodeOf } from '../../../src/tool-call/tool-failure.js';
import type { ToolCallInput } from '../../../src/tool-call/tool-call-io.js';
import { testTool } from '../../support/descriptors.js';

const input = (): ToolCallInput => ({
  callId: 'c1',
  tool: testTool('echo'),
  args: {},
  timeoutMs: 1_000,
  sandboxed: false,
  startedAt: Date.now(),
});
const failed = (errorCode: ToolErrorCode): ToolResult => ({
  success: false,
  content: [],
  data: undefined,
  error: 'it failed',
  errorCode,
  durationMs: 1,
});

describe('one error vocabulary', () => {
  it('spells every tool failure kind the error family also has exactly as ErrorCode does', () => {
    const family = new Set<string>(Object.values(ErrorCode));
    expect(
      Object.values(ToolErrorCode)
        .filter((code) => family.has(code))
        .sort(),
    ).toEqual(['CANCELLED', 'CONNECTION_LOST', 'NOT_FOUND', 'PERMISSION_DENIED', 'REQUEST_TIMEOUT', 'TENANT_ARGUMENT', 'TENANT_MISMATCH']);
    expect(Object.values(ToolErrorCode)).not.toContain('TIMEOUT');
    expect(Object.values(ToolErrorCode)).not.toContain('TOOL_NOT_FOUND');
  });

  it('keeps the family code of a tool failure at the public boundary, with the finer kind in details', () => {
    expect(toolFailedError(input(), failed('REQUEST_TIMEOUT'))).toMatchObject({
      code: 'REQUEST_TIMEOUT',
      details: { errorCode: 'REQUEST_TIMEOUT' },
    });
    expect(toolFailedError(input(), failed('CONNECTION_LOST'))).toMatchObject({ code: 'CONNECTION_LOST' });
    expect(toolFailedError(input(), failed('NOT_FOUND'))).toMatchObject({ code: 'NOT_FOUND' });
    expect(toolFailedError(input(), failed('CANCELLED'))).toMatchObject({ code: 'CANCELLED' });
    expect(toolFailedError(input(), failed('VALIDATION'))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { errorCode: 'VALIDATION' },
    });
    expect(toolFailedError(input(), failed('SERVER_ERROR'))).toMatchObject({ code: 'TOOL_FAILED', details: { errorCode: 'SERVER_ERROR' } });
    expect(toolFailedError(input(), failed('OUTPUT_VALIDATION'))).toMatchObject({
      code: 'TOOL_FAILED',
      details: { errorCode: 'OUTPUT_VALIDATION' },
    });
  });

  it('tells a failed request’s kind from its structure, never from its message', () => {
    const protocol = (mcpCode: number, message: string) => new McpActorsError(ErrorCode.PROTOCOL_ERROR, message, { details: { mcpCode } });
    expect(toolErrorCodeOf(protocol(McpErrorCode.InternalError, 'tool not found; unknown tool'))).toBe('SERVER_ERROR');
    expect(toolErrorCodeOf(protocol(McpErrorCode.MethodNotFound, 'no such method'))).toBe('NOT_FOUND');
    expect(toolErrorCodeOf(new McpActorsError(ErrorCode.REQUEST_TIMEOUT, 'slow'))).toBe('REQUEST_TIMEOUT');
    expect(toolErrorCodeOf(new McpActorsError(ErrorCode.CANCELLED, 'stop'))).toBe('CANCELLED');
    expect(toolErrorCodeOf(new McpActorsError(ErrorCode.SERVER_CRASHED, 'gone'))).toBe('CONNECTION_LOST');
    // A request the client refused to send is a bad argument, not a lost connection.
    expect(toolErrorCodeOf(new McpActorsError(ErrorCode.INVALID_ARGUMENT, 'timeoutMs must be a positive number'))).toBe('VALIDATION');
    expect(toolErrorCodeOf(new McpActorsError(ErrorCode.TENANT_MISMATCH, 'other tenant'))).toBe('TENANT_MISMATCH');
    expect(toolErrorCodeOf(new Error('not found'))).toBe('SERVER_ERROR');
  });

  it('spells every errorCode written in src/ as a string from the vocabulary (ErrorCode or ToolErrorCode)', () => {
    const known = new Set<string>([...Object.values(ErrorCode), ...Object.values(ToolErrorCode)]);
    const src = fileURLToPath(new URL('../../../src', import.meta.url));
    const files = (readdirSync(src, { recursive: true }) as string[]).filter((file) => /\.(ts|mjs)$/.test(file));
    const written = files.flatMap((file) =>
      [...readFileSync(join(src, file), 'utf8').matchAll(/errorCode: '([A-Z_]+)'/g)].map(([, code]) => `${file}: ${code}`),
    );
    expect(written.length).toBeGreaterThan(0);
    expect(written.filter((entry) => !known.has(entry.split(': ')[1]!))).toEqual([]);
    // The scan sees what it is for: a code outside the vocabulary is caught.
    expect(known.has('TOOL_NOT_FOUND')).toBe(false);
  });
});
