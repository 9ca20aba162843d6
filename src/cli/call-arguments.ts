/**
 * The JSON arguments of `agents call`: one JSON object, with a message that says where it is
 * broken and what to write instead.
 */
import { jsonSyntaxError } from '../config/json-syntax.js';
import { UsageError } from './usage-error.js';

const EXAMPLE = `'{"path":"README.md"}'`;

/**
 * @example
 * parseCallArguments('{"message":"hi"}'); // { message: 'hi' }
 * parseCallArguments(undefined);          // {}
 */
export function parseCallArguments(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  const syntax = jsonSyntaxError(text);
  if (syntax !== undefined) {
    throw new UsageError(
      `the tool arguments are not valid JSON: ${syntax.problem} at character ${syntax.offset + 1} — ${syntax.hint}; write one quoted JSON object, such as ${EXAMPLE}`,
    );
  }
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const got = Array.isArray(value) ? 'a list' : value === null ? 'null' : `a ${typeof value}`;
    throw new UsageError(`the tool arguments must be a JSON object, got ${got}; write ${EXAMPLE}`);
  }
  return value as Record<string, unknown>;
}
