/**
 * A JSON Schema validator for the SDK `Client` that accepts every tool output. The SDK's own
 * validator compiles every output schema inside `listTools` (one bad schema fails the listing)
 * and throws on a mismatch; `McpClient` returns the server's answer as it is, and the adapter of
 * the registry validates outputs itself, per tool.
 */
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

export const acceptAnyOutput: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input: unknown) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};
