/**
 * `createRuntime({ config })` is typed from the file's schema: a misspelled key fails to compile
 * (`npm test` runs `tsc --noEmit`, which reads this file; an unused `@ts-expect-error` fails it too).
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AgentsFileConfig, RuntimeOptions } from '../../../src/index.js';

describe('the configuration a host writes as objects', () => {
  it('takes the keys of agents.yaml, in either spelling, and refuses a misspelled one at compile time', () => {
    const good: RuntimeOptions = {
      config: {
        servers: {
          memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], start_timeout_ms: 5_000, startTimeoutMs: 5_000 },
        },
        skills: { notes: { mcp_servers: ['memory'] }, more: { mcpServers: [{ server: 'memory', include: ['read_*'] }] } },
        actors: { helper: { skills: ['notes'], permissions: { execute: 'ask' } } },
      },
    };
    const typo: RuntimeOptions = {
      config: {
        // @ts-expect-error -- `comand` is not a key of a server entry
        servers: { memory: { comand: 'npx' } },
      },
    };
    // @ts-expect-error -- `skils` is not a key of an actor
    const actorTypo: AgentsFileConfig = { actors: { helper: { skils: ['notes'] } } };
    expectTypeOf<RuntimeOptions['config']>().not.toBeUnknown();
    expect([good, typo, actorTypo]).toHaveLength(3);
  });
});
