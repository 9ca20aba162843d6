/**
 * A `node:fs` with some functions replaced, for `vi.mock('node:fs', …)` in tests that make a race
 * exact by one answer of the file system. Both the named exports and `default` carry the replacements.
 *
 * @example
 * vi.mock('node:fs', async (importOriginal) => {
 *   const { overrideFs } = await import('../../support/fs-override.js');
 *   return overrideFs(await importOriginal<typeof import('node:fs')>(), (real) => ({ lstatSync: real.lstatSync }));
 * });
 */
export function overrideFs<Fs extends object>(real: Fs, replace: (real: Fs) => Partial<Fs>): Fs & { default: Fs } {
  const replaced = replace(real);
  return { ...real, default: { ...real, ...replaced }, ...replaced };
}
