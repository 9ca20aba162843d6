/**
 * One line of a stdio server's output as a JSON-RPC message. The SDK's `deserializeMessage` runs
 * every line through a zod union of four strict schemas; for the line that comes back for every
 * call — a result response — that costs about twice the `JSON.parse` itself, and the SDK checks
 * the result again against the request's own result schema. So a line that is plainly a result
 * response (exactly `jsonrpc: "2.0"`, an integer or string `id` and an object `result` without
 * `_meta`) is taken as it is; every other line goes through `deserializeMessage` unchanged, and
 * so does any line naming a `__proto__` key (zod's copy drops it or makes it a prototype; taken
 * as it is, it would stay an own key).
 * `properties/json-rpc-line.test.ts` checks that both accept and refuse the same lines.
 */
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export function parseMessageLine(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  if (isPlainResultResponse(value) && !line.includes('__proto__')) return value as JSONRPCMessage;
  return deserializeMessage(line);
}

function isPlainResultResponse(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  const { id, result } = message;
  let keys = 0;
  for (const key in message) {
    if (!Object.hasOwn(message, key)) continue;
    keys += 1;
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'result') return false;
  }
  return (
    keys === 3 &&
    message.jsonrpc === '2.0' &&
    (typeof id === 'string' || Number.isSafeInteger(id)) &&
    typeof result === 'object' &&
    result !== null &&
    !Array.isArray(result) &&
    !Object.hasOwn(result, '_meta')
  );
}
