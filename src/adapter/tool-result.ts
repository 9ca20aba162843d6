/**
 * The server's answer to `tools/call` as an `McpToolResult`: `isError` becomes a SERVER_ERROR with
 * the text of `content[0]` (MCP 1.4+ puts the error there), and structured content is checked
 * against the tool's output schema where it has one. Failures are built by `toolFailure`.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { compileSchema, describeViolations, violationsOf, type JsonSchema } from '../registry/json-schema-validators.js';
import { ToolErrorCode, type ToolResult } from '../registry/tool-descriptor.js';
import type { ToolContentBlock } from '../registry/tool-content.js';
import { toolFailure } from '../tool-call/tool-failure.js';

const TOOL_ERROR_CODES: ReadonlySet<unknown> = new Set(Object.values(ToolErrorCode));
const isToolErrorCode = (value: unknown): value is ToolErrorCode => TOOL_ERROR_CODES.has(value);

export function toMcpToolResult(
  answer: CallToolResult,
  tool: { readonly name: string; readonly outputSchema: JsonSchema | undefined },
  durationMs: number,
): ToolResult {
  const content: readonly ToolContentBlock[] = answer.content;
  const data = answer.structuredContent;
  if (answer.isError) {
    const first = content[0];
    const text = first?.type === 'text' ? first.text : 'unknown error';
    // A server of ours (serveOverStdio) says which kind of failure it was in _meta.errorCode.
    const declared = (answer._meta as { errorCode?: unknown } | undefined)?.errorCode;
    const errorCode = isToolErrorCode(declared) ? declared : 'SERVER_ERROR';
    // Our servers word their failures themselves; another server's text is said to be the tool's.
    const error = errorCode === 'SERVER_ERROR' ? `tool "${tool.name}" answered with an error: ${text}` : text;
    return toolFailure(0, errorCode, error, { content, data, durationMs });
  }
  if (tool.outputSchema) {
    const output = compileSchema(tool.outputSchema);
    if (output.ok) {
      if (data === undefined) {
        return toolFailure(
          0,
          'OUTPUT_VALIDATION',
          `output validation failed for "${tool.name}": the tool declares an output schema but gave no structured content`,
          { content, data, durationMs },
        );
      }
      if (!output.validate(data)) {
        const violations = violationsOf(output.validate.errors);
        return toolFailure(0, 'OUTPUT_VALIDATION', `output validation failed for "${tool.name}": ${describeViolations(violations)}`, {
          content,
          data,
          violations,
          durationMs,
        });
      }
    }
  }
  return { success: true, content, data, error: undefined, errorCode: undefined, durationMs };
}
