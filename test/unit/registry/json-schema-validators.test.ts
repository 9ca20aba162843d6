/**
 * Ajv keeps every schema it compiled, and its validator, in the instance for good. A host that
 * meets more distinct tool schemas than the cache holds (a server of thousands of tools, relisted;
 * tools that come and go) must not keep them all: the Ajv that compiled them is let go once the
 * cache has.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { compileSchema, sharedAjv } from '../../../src/registry/json-schema-validators.js';

// vitest cannot pass --expose-gc to its workers; V8 can still be asked for `gc` at run time.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const LIMIT = 2_000;
const distinct = (i: number) => ({ type: 'object', properties: { a: { type: 'string', maxLength: i } }, required: ['a'] });

describe('compileSchema', () => {
  it('validates with the schema it compiled, once per schema', () => {
    const compiled = compileSchema({ type: 'object', properties: { n: { type: 'number' } }, required: ['n'] });
    if (!compiled.ok) throw new Error(compiled.problem);
    expect(compiled.validate({ n: 1 })).toBe(true);
    expect(compiled.validate({ n: 'x' })).toBe(false);
    expect(compileSchema({ type: 'object', properties: { n: { type: 'number' } }, required: ['n'] })).toBe(compiled);
  });

  it('lets go of the Ajv that compiled schemas the cache no longer holds', { timeout: 60_000 }, async () => {
    let first: object | undefined = sharedAjv('2020-12');
    const firstOnes = new WeakRef(first);
    // Fill the first instance, then as many again in the next, so the cache holds none of the first's.
    for (let i = 0; i < 2 * LIMIT + 1; i += 1) expect(compileSchema(distinct(i)).ok).toBe(true);
    const replaced = sharedAjv('2020-12') !== first;
    // eslint-disable-next-line no-useless-assignment -- dropping the last strong reference is the point: the test waits for that Ajv to be collected
    first = undefined;
    expect(replaced).toBe(true);
    for (let i = 0; i < 4 && firstOnes.deref() !== undefined; i += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    expect(firstOnes.deref()).toBeUndefined();
    // And what it compiled still validates, from whichever instance holds it now.
    const again = compileSchema(distinct(7));
    if (!again.ok) throw new Error(again.problem);
    expect(again.validate({ a: 'x'.repeat(7) })).toBe(true);
    expect(again.validate({ a: 'x'.repeat(8) })).toBe(false);
  });
});
