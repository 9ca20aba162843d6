import { isMcpActorsError, type McpActorsError } from '../../src/errors/index.js';

/** The classified error a promise rejects with; fails the test if it resolves or rejects with anything else. */
export async function rejection(promise: Promise<unknown>): Promise<McpActorsError> {
  const outcome = await promise.then(
    () => new Error('expected a rejection, but the promise resolved'),
    (error: unknown) => error,
  );
  if (!isMcpActorsError(outcome)) throw new Error(`expected a classified rejection, got ${String(outcome)}`);
  return outcome;
}
