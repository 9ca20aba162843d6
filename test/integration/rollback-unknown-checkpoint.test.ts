/**
 * rollback() of a checkpoint the sandbox does not hold says which it holds and names the actor
 * handle's own way to list them, checkpoints().
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { fixtureServerPath } from '../../src/testing/fixture.js';
import { createGitProject } from '../support/git-project.js';

const project = createGitProject({ 'notes.md': '# notes\n' });
afterAll(() => rmSync(project, { recursive: true, force: true }));
const pidLog = process.env.MCP_ACTORS_PID_LOG ? { MCP_ACTORS_PID_LOG: process.env.MCP_ACTORS_PID_LOG } : {};

describe('rollback of an unknown checkpoint', () => {
  it("names the handle's checkpoints(), which the caller has", async () => {
    const runtime = await createRuntime({
      config: {
        servers: { fixture: { command: process.execPath, args: [fixtureServerPath()], env: pidLog } },
        skills: { basic: { mcp_servers: [{ server: 'fixture', include: ['echo'] }] } },
        actors: { helper: { skills: ['basic'] } },
      },
    });
    try {
      const sandbox = await runtime.createSandbox(project);
      const helper = await runtime.activate('helper', { tenant: 'acme', sandbox });
      const error: unknown = await helper.rollback('ckpt-999').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: 'CHECKPOINT_NOT_FOUND' });
      const message = (error as Error).message;
      expect(message).toContain("an actor's checkpoints() lists them");
      expect(message).not.toContain('list()');
      expect(helper.checkpoints().length).toBeGreaterThan(0);
    } finally {
      await runtime.shutdown();
    }
  });
});
