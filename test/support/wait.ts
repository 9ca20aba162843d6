/** Polls until `predicate` holds; a generous limit, not a timing assertion. */
export async function waitUntil(predicate: () => boolean, what: string, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
