/**
 * Both execute policies can be named from the package entry: an actor's `ExecutePolicy`
 * (agents.yaml's `permissions.execute`, from `EXECUTE_POLICIES`) and a served server's
 * `ServedExecutePolicy` (with `'scope'` and a function). Before, the package exported two types
 * under one name and the served one could not be imported at all: this file did not compile
 * (`npx tsc --noEmit -p .`).
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  EXECUTE_POLICIES,
  decideAccess,
  defineTool,
  type AccessRequest,
  type ExecutePolicy,
  type ServePolicy,
  type ServedExecutePolicy,
} from '../../src/index.js';

const purge = defineTool({
  name: 'roster_purge',
  domain: 'roster',
  category: 'execute',
  description: 'Purges the roster.',
  input: { type: 'object', properties: {}, additionalProperties: false },
  call: () => 'purged',
});

describe('the execute policies, by name from the package', () => {
  it("ExecutePolicy is agents.yaml's list and nothing else", () => {
    expectTypeOf<ExecutePolicy>().toEqualTypeOf<(typeof EXECUTE_POLICIES)[number]>();
    expectTypeOf<ExecutePolicy>().toEqualTypeOf<'allow' | 'ask' | 'deny'>();
    const all: readonly ExecutePolicy[] = EXECUTE_POLICIES;
    expect(all).toEqual(['allow', 'ask', 'deny']);
  });

  it("ServedExecutePolicy names the served variant: 'scope' and a function, no 'ask'", () => {
    expectTypeOf<'scope'>().toExtend<ServedExecutePolicy>();
    expectTypeOf<(request: AccessRequest) => boolean>().toExtend<ServedExecutePolicy>();
    expectTypeOf<'ask'>().not.toExtend<ServedExecutePolicy>();
    expectTypeOf<ServePolicy['execute']>().toEqualTypeOf<ServedExecutePolicy | undefined>();

    const byScope: ServedExecutePolicy = 'scope';
    const session = { tenant: 'acme', scopes: [] };
    expect(decideAccess(purge, session, { execute: byScope })).toMatchObject({ allowed: false, rule: 'execute-needs-scope' });
    expect(decideAccess(purge, { ...session, scopes: ['tool:roster_purge'] }, { execute: byScope })).toEqual({ allowed: true });
  });
});
