/**
 * What a test opens (servers, clients, runtimes, providers), closed after each test in the reverse
 * order of opening, as a DisposableStack would: a client before the server it talks to, a runtime
 * before what it was given. Every close is tried; the first failure then fails the test.
 */
import { afterEach } from 'vitest';

/** Registers the hook in the calling test file (call once at its top level); returns `closing(value, close)`. */
export function closedAfterEach(): <T>(value: T, close: (value: T) => unknown) => T {
  const opened: (() => unknown)[] = [];
  afterEach(async () => {
    const failures: unknown[] = [];
    for (const close of opened.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
  });
  return (value, close) => {
    opened.push(() => close(value));
    return value;
  };
}
