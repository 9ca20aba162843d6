/**
 * The errors and notes a tool call ends with, built in one place so the machine and the fast path
 * say exactly the same thing.
 */
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, isMcpActorsError, messageOf } from '../errors/mcp-actors-error.js';
import { compileSchema, describeViolations, violationsOf } from '../registry/json-schema-validators.js';
import type { ToolResult } from '../registry/tool-descriptor.js';
import type { Authorization, ToolCallInput } from './tool-call-io.js';
import { PUBLIC_CODE } from './tool-failure.js';

export function argsAreValid(input: ToolCallInput, args: Readonly<Record<string, unknown>>): boolean {
  const schema = compileSchema(input.tool.inputSchema);
  if (!schema.ok) return false;
  // Only `true` passes: an async schema's validator answers with a promise.
  const valid: unknown = schema.validate(args);
  return valid === true;
}

export function invalidArgsError(input: ToolCallInput, args: Readonly<Record<string, unknown>>): McpActorsError {
  const { tool } = input;
  const schema = compileSchema(tool.inputSchema);
  const violations = schema.ok && !schema.validate(args) ? violationsOf(schema.validate.errors) : [];
  const detail = schema.ok ? describeViolations(violations) : `its input schema does not compile (${schema.problem})`;
  return new McpActorsError(ErrorCode.INVALID_ARGUMENT, `the arguments of "${tool.name}" do not match its input schema: ${detail}`, {
    details: { tool: tool.name, violations },
  });
}

export function deniedError(input: ToolCallInput, denial: Authorization & { allowed: false }): McpActorsError {
  return new McpActorsError(denial.code ?? ErrorCode.PERMISSION_DENIED, `"${input.tool.name}" was not allowed: ${denial.reason}`, {
    details: { tool: input.tool.name, rule: denial.rule },
  });
}

export function asCallError(error: unknown, code: ErrorCode, message: string): McpActorsError {
  return isMcpActorsError(error) ? error : new McpActorsError(code, `${message}: ${messageOf(error)}`, { cause: error });
}

/**
 * A tool's failure at the public boundary: the failure the tool's result carries, as it was worded
 * (no prefix), with its code, its `details` (`kind`, `mcpCode`, ...) and its `cause`, and the
 * registered tool's name added as `details.tool`. A result from a handler of the host's own,
 * without a `failure`, gets one from its `errorCode` (the kind) and `error`.
 */
export function toolFailedError(input: ToolCallInput, result: ToolResult): McpActorsError {
  const tool = input.tool.name;
  const kind = result.errorCode ?? 'SERVER_ERROR';
  const failure = result.failure;
  if (failure === undefined) {
    return new McpActorsError(PUBLIC_CODE[kind], `"${tool}" failed: ${result.error ?? 'the tool reported an error'}`, {
      details: { tool, kind, errorCode: kind },
    });
  }
  // `errorCode` repeats `kind` for hosts that read it before `kind` was its name.
  return new McpActorsError(failure.code, failure.message, {
    cause: failure.cause,
    details: { ...failure.details, tool, kind, errorCode: kind },
  });
}

export function threwError(input: ToolCallInput, error: unknown): McpActorsError {
  return asCallError(error, ErrorCode.TOOL_FAILED, `"${input.tool.name}" threw`);
}

export function timeoutError(input: ToolCallInput): McpActorsError {
  return new McpActorsError(
    ErrorCode.REQUEST_TIMEOUT,
    `"${input.tool.name}" did not finish within ${input.timeoutMs} ms; it was cancelled. Raise timeoutMs if the tool is slow`,
    { details: { tool: input.tool.name, timeoutMs: input.timeoutMs } },
  );
}

export function cancelledError(input: ToolCallInput, reason: string | undefined): McpActorsError {
  return new McpActorsError(ErrorCode.CANCELLED, `"${input.tool.name}" was cancelled${reason ? `: ${reason}` : ''}`, {
    details: { tool: input.tool.name },
  });
}

export function rollbackFailedError(input: ToolCallInput, error: unknown, first: McpActorsError | undefined): McpActorsError {
  return new McpActorsError(
    ErrorCode.CHECKPOINT_FAILED,
    `rolling back after "${input.tool.name}" failed: ${messageOf(error)}; the sandbox may be part-restored — ` +
      'roll back again (handle.rollback(checkpointId)); an interrupted rollback resumes where it stopped',
    { cause: error, details: { tool: input.tool.name, firstError: first } },
  );
}

export function authorizeFailedError(input: ToolCallInput, error: unknown): McpActorsError {
  if (isMcpActorsError(error)) return error;
  return new McpActorsError(
    ErrorCode.PERMISSION_DENIED,
    `the permission check for "${input.tool.name}" failed (${messageOf(error)}), so the call was not allowed; check the approval callback`,
    { cause: error, details: { tool: input.tool.name, rule: 'the permission check threw' } },
  );
}

export function rolledBackNote(input: ToolCallInput): string | undefined {
  return input.tool.checkpointable
    ? undefined
    : 'the sandbox was restored; effects of this tool outside the sandbox (it is not checkpointable) were not undone';
}

export function waitedTooLongError(input: ToolCallInput, what: 'approval' | 'the sandbox lock'): McpActorsError {
  return new McpActorsError(
    ErrorCode.REQUEST_TIMEOUT,
    `"${input.tool.name}" waited ${input.timeoutMs} ms for ${what} and was given up; the tool did not run. ` +
      (what === 'approval'
        ? 'Answer approvals sooner, or raise timeoutMs'
        : 'A long write holds the sandbox; raise timeoutMs or try again'),
    { details: { tool: input.tool.name, timeoutMs: input.timeoutMs, waitedFor: what } },
  );
}
