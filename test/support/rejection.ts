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

/**
 * The error `run` throws, when `is` recognises it; an error it does not recognise is thrown on, and
 * `nothing` (what the test expected) is thrown when `run` returns. The synchronous `rejection`.
 */
export function thrownBy<E>(run: () => unknown, is: (error: unknown) => error is E, nothing: string): E {
  try {
    run();
  } catch (error) {
    if (is(error)) return error;
    throw error;
  }
  throw new Error(nothing);
}
