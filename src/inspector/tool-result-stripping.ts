/**
 * What the Stately bridge forwards to stately.ai, a third-party page: inspection messages with the
 * content of every tool result left out (file contents, command output), unless the host opted in
 * (`inspect: { shareToolResults: true }`). The runtime's own page, served offline from 127.0.0.1,
 * gets the messages as they are (redacted).
 */

/** What a stripped result says instead of its content. */
export const WITHHELD = '[tool result withheld from the Stately inspector]';

const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

function isContentList(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.some((item) => typeof item === 'object' && item !== null && CONTENT_TYPES.has(String((item as { type?: unknown }).type)))
  );
}

/**
 * A copy of `value` (parsed JSON) in which every MCP tool result (`{ content: [...] }`, with or
 * without `structuredContent`) keeps only `isError` and says its content was withheld.
 */
export function withoutToolResults(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutToolResults);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  if (isContentList(record.content) || 'structuredContent' in record) {
    return { ...('isError' in record ? { isError: record.isError } : {}), content: [{ type: 'text', text: WITHHELD }] };
  }
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(record)) copy[key] = withoutToolResults(inner);
  return copy;
}
