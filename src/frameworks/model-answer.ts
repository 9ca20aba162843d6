/**
 * What a model is shown of a call's outcome, before any framework's form: a committed call's MCP
 * content as text, image, audio and file blocks; any other outcome (`rejected`, `rolled-back`,
 * `failed`) as one line of error text that says why. Each bridge turns this into its framework's
 * own tool result.
 */
import type { CallOutcome, CallStatus } from '../tool-call/tool-call-io.js';

export type ModelBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'audio'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'file'; readonly data: string; readonly mimeType: string; readonly uri: string | undefined };

/** A call's outcome as a model is shown it. JSON throughout, so a framework may store it. */
export interface ModelAnswer {
  /** True for a committed call whose tool succeeded; false is shown to the model as a tool error. */
  readonly ok: boolean;
  readonly status: CallStatus;
  /** The tool's content blocks (ok), or one text block with the error (not ok). */
  readonly blocks: readonly ModelBlock[];
  /** The text blocks joined, or the error line: for frameworks that show the model text only. */
  readonly text: string;
  /** The tool's structured content, when it gave one. */
  readonly data?: unknown;
  /** The sandbox checkpoint before the call (roll back to it with `actor.rollback(checkpointId)`). */
  readonly checkpointId?: string;
  /** Why it was not ok: the error's code, its message, and the rule that refused it, if one did. */
  readonly error?: { readonly code: string; readonly message: string; readonly rule?: string };
}

const STATUS_WORDS: Record<Exclude<CallStatus, 'committed'>, string> = {
  rejected: 'The call was refused',
  'rolled-back': 'The call failed and its changes were rolled back',
  failed: 'The call failed',
};

/** The model's view of an outcome. */
export function modelAnswerOf(outcome: CallOutcome): ModelAnswer {
  const checkpoint = outcome.checkpointId === undefined ? {} : { checkpointId: outcome.checkpointId };
  const result = outcome.result;
  if (outcome.status === 'committed' && result?.success !== false) {
    const blocks = (result?.content ?? []).map(blockOf);
    const data = result?.data;
    if (blocks.length === 0 && data !== undefined) blocks.push({ type: 'text', text: JSON.stringify(data) });
    const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
    return { ok: true, status: outcome.status, blocks, text, ...(data === undefined ? {} : { data }), ...checkpoint };
  }
  const code = outcome.error?.code ?? result?.errorCode ?? 'TOOL_FAILED';
  const message = outcome.error?.message ?? result?.error ?? 'the tool reported an error';
  const rule = outcome.error?.details.rule;
  const words = outcome.status === 'committed' ? STATUS_WORDS.failed : STATUS_WORDS[outcome.status];
  const note = outcome.note ? ` ${outcome.note}` : '';
  const text = `${words} (${code}): ${message}${note}`;
  return {
    ok: false,
    status: outcome.status,
    blocks: [{ type: 'text', text }],
    text,
    error: { code, message, ...(typeof rule === 'string' ? { rule } : {}) },
    ...checkpoint,
  };
}

/** One MCP content block as a model block; what has no model form is said as text. */
function blockOf(content: object): ModelBlock {
  // Read field by field: a server may send blocks a later spec adds, or fields of the wrong type.
  const block = content as Readonly<Record<string, unknown>>;
  const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  switch (block.type) {
    case 'text':
      return { type: 'text', text: str(block.text) ?? '' };
    case 'image':
    case 'audio': {
      const data = str(block.data);
      const mimeType = str(block.mimeType);
      if (data !== undefined && mimeType !== undefined) return { type: block.type, data, mimeType };
      break;
    }
    case 'resource': {
      const resource = (block.resource ?? {}) as Readonly<Record<string, unknown>>;
      const uri = str(resource.uri);
      const text = str(resource.text);
      if (text !== undefined) return { type: 'text', text: uri === undefined ? text : `${uri}\n${text}` };
      const blob = str(resource.blob);
      if (blob !== undefined) return { type: 'file', data: blob, mimeType: str(resource.mimeType) ?? 'application/octet-stream', uri };
      break;
    }
    case 'resource_link': {
      const name = str(block.name);
      const uri = str(block.uri) ?? '';
      return { type: 'text', text: `Resource ${name === undefined ? uri : `"${name}" at ${uri}`}` };
    }
  }
  return { type: 'text', text: JSON.stringify(block) };
}
