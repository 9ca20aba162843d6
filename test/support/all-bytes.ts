/**
 * Every byte a value would show anyone: its JSON, and for errors also the message, stack, details
 * and cause chain (which JSON.stringify leaves out). For "this secret appears nowhere" checks.
 */
export function allBytes(value: unknown, seen = new Set<unknown>()): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return String(value);
  if (seen.has(value)) return '';
  seen.add(value);
  const parts: string[] = [];
  if (value instanceof Error) {
    parts.push(value.name, value.message, String(value.stack), allBytes(value.cause, seen));
  }
  for (const key of Reflect.ownKeys(value)) {
    parts.push(String(key));
    const item = (value as Record<string | symbol, unknown>)[key];
    if (typeof item !== 'function') parts.push(allBytes(item, seen));
  }
  return parts.join('\n');
}
