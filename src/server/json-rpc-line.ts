/**
 * One line of a stdio server's output as a JSON-RPC message. The SDK's `deserializeMessage` runs
 * every line through a zod union of four strict schemas; for the line that comes back for every
 * call — a result response — that costs about twice the `JSON.parse` itself, and the SDK checks
 * the result again against the request's own result schema. So a line that is plainly a result
 * response (exactly `jsonrpc: "2.0"`, an integer or string `id` and an object `result` without
 * `_meta`) is taken as it is. So is a plain notification (exactly `jsonrpc: "2.0"`, a string
 * `method` and, if any, object `params` without `_meta`): for the union it is the second branch,
 * and the issues zod builds for the failed first one made a flood of them (a server sending
 * `list_changed` or log lines in a loop) cost the host about 30 µs each, mostly garbage
 * collection. Every other line goes through `deserializeMessage` unchanged, and so does any line
 * naming a `__proto__` key (zod's copy drops it or makes it a prototype; taken as it is, it would
 * stay an own key). `properties/json-rpc-line.test.ts` checks that both accept and refuse the
 * same lines and give the same messages.
 */
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export function parseMessageLine(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  if ((isPlainResultResponse(value) || isPlainNotification(value)) && !line.includes('__proto__')) return value as JSONRPCMessage;
  return deserializeMessage(line);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function isPlainNotification(value: unknown): boolean {
  if (!isObject(value)) return false;
  for (const key in value) {
    if (Object.hasOwn(value, key) && key !== 'jsonrpc' && key !== 'method' && key !== 'params') return false;
  }
  const { params } = value;
  return (
    value.jsonrpc === '2.0' &&
    typeof value.method === 'string' &&
    (params === undefined || (isObject(params) && !Object.hasOwn(params, '_meta')))
  );
}

function isPlainResultResponse(value: unknown): boolean {
  if (!isObject(value)) return false;
  const message = value;
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
    isObject(result) &&
    !Object.hasOwn(result, '_meta')
  );
}
