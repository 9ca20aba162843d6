/**
 * How `agents call` shows a call's outcome: status and duration, checkpoint, changes, error and
 * note, then what the tool answered — and, with a sandbox, its diff and what was applied.
 */
import type { CallOutcome, FileChange } from '../tool-call/tool-call-io.js';
import type { ToolResult } from '../registry/tool-descriptor.js';
import { fieldText, formatDuration } from './text-table.js';

/** What happened around the call in the sandbox. */
export interface SandboxReport {
  readonly project: string;
  readonly diff: string;
  /** Paths written into the project by `--apply`; undefined when it was not asked for or not done. */
  readonly applied?: readonly string[] | undefined;
  /** Why `--apply` wrote nothing. */
  readonly notApplied?: string | undefined;
  /** The error code when `--apply` failed (APPLY_CONFLICT: the project changed meanwhile). */
  readonly applyError?: string | undefined;
}

/**
 * @example
 * formatOutcome({ tool: 'fixture/echo', status: 'committed', durationMs: 3, result: { content: [{ type: 'text', text: 'hi' }], ... }, ... });
 * // 'fixture/echo: committed (3 ms)\n\nhi\n'
 */
export function formatOutcome(outcome: CallOutcome, sandbox?: SandboxReport): string {
  const lines = [`${outcome.tool}: ${outcome.status} (${formatDuration(outcome.durationMs)})`];
  if (outcome.checkpointId !== undefined) lines.push(`checkpoint: ${outcome.checkpointId}`);
  if (outcome.changes.length > 0) lines.push('changes:', ...outcome.changes.map((change) => `  ${changeLine(change)}`));
  if (outcome.error !== undefined) lines.push(`error [${outcome.error.code}]: ${outcome.error.message}`);
  if (outcome.note !== undefined) lines.push(`note: ${outcome.note}`);
  const text = outcome.result === undefined ? undefined : resultText(outcome.result);
  // A failed tool's text is often the error message again; print it once.
  const repeated = text !== undefined && outcome.error !== undefined && outcome.error.message.includes(text.trim());
  if (text !== undefined && text.trim() !== '' && !repeated) lines.push('', text.replace(/\n$/, ''));
  if (sandbox !== undefined) {
    lines.push('', sandbox.diff === '' ? `the sandbox of ${sandbox.project} has no changes` : `diff of the sandbox of ${sandbox.project}:`);
    if (sandbox.diff !== '') lines.push(sandbox.diff.replace(/\n$/, ''));
    if (sandbox.applied !== undefined) {
      lines.push(
        sandbox.applied.length === 0
          ? `applied to ${sandbox.project}: nothing to write`
          : `applied to ${sandbox.project}: ${sandbox.applied.join(', ')}`,
      );
    } else if (sandbox.notApplied !== undefined) {
      lines.push(`not applied: ${sandbox.notApplied}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** `modified  src/main.py`. */
export function changeLine(change: FileChange): string {
  return `${change.kind.padEnd(8)}  ${change.path}`;
}

/**
 * The answer of a tool as text: its text blocks as they are, other blocks as a one-line
 * description, and the structured content as JSON when there is no text.
 */
export function resultText(result: ToolResult): string {
  const parts = result.content.map(blockText);
  if (parts.every((part) => part === '') && result.data !== undefined) return JSON.stringify(result.data, null, 2);
  if (parts.length === 0 && result.error !== undefined) return result.error;
  return parts.join('\n');
}

function blockText(block: Record<string, unknown>): string {
  const type = typeof block.type === 'string' ? block.type : 'unknown';
  if (type === 'text' && typeof block.text === 'string') return block.text;
  if ((type === 'image' || type === 'audio') && typeof block.data === 'string') {
    return `[${type} ${fieldText(block.mimeType)}, ${Math.floor((block.data.length * 3) / 4)} bytes]`;
  }
  if (type === 'resource_link') return `[resource link ${fieldText(block.uri)}]`;
  if (type === 'resource' && typeof block.resource === 'object' && block.resource !== null) {
    const resource = block.resource as Record<string, unknown>;
    return typeof resource.text === 'string' ? resource.text : `[resource ${fieldText(resource.uri)}]`;
  }
  return `[${type} block]`;
}

/** The outcome for `--json`: plain data (the error as code, message and details). */
export function outcomeJson(outcome: CallOutcome): Record<string, unknown> {
  return {
    callId: outcome.callId,
    tool: outcome.tool,
    status: outcome.status,
    durationMs: outcome.durationMs,
    result: outcome.result,
    changes: outcome.changes,
    checkpointId: outcome.checkpointId,
    error:
      outcome.error === undefined
        ? undefined
        : { code: outcome.error.code, message: outcome.error.message, details: outcome.error.details },
    note: outcome.note,
  };
}
