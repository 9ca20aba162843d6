/**
 * A person is asked to approve a call only once the call could run: its arguments valid, no tenant
 * argument, and every path inside the sandbox. A call refused anyway is refused without a question.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import type { ApprovalRequest } from '../../src/runtime/permissions.js';
import { referenceServerPath } from '../../src/testing/reference-servers.js';
import { createGitProject } from '../support/git-project.js';

const project = createGitProject({ 'notes.md': '# notes\n' });
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('approval', () => {
  it('is asked only after the argument, tenant and path checks pass', async () => {
    const asked: string[] = [];
    const env = process.env.MCP_ACTORS_PID_LOG ? { MCP_ACTORS_PID_LOG: process.env.MCP_ACTORS_PID_LOG } : {};
    const runtime = await createRuntime({
      config: {
        servers: { files: { command: process.execPath, args: [referenceServerPath('filesystem'), '${SANDBOX_ROOT}'], env } },
        skills: { editing: { mcp_servers: [{ server: 'files', include: ['write_file'] }] } },
        actors: { editor: { skills: ['editing'], permissions: { execute: 'ask' } } },
      },
      approve: (request: ApprovalRequest) => {
        asked.push(JSON.stringify(request.args));
        return true;
      },
    });
    try {
      const sandbox = await runtime.createSandbox(project);
      const editor = await runtime.activate('editor', { tenant: 'acme', sandbox });

      const outside = await editor.call('files/write_file', { path: '../outside.txt', content: 'x' });
      expect([outside.status, outside.error?.code]).toEqual(['rejected', 'SANDBOX_PATH']);
      const invalid = await editor.call('files/write_file', { path: 'a.md' });
      expect([invalid.status, invalid.error?.code]).toEqual(['rejected', 'INVALID_ARGUMENT']);
      const tenant = await editor.call('files/write_file', { path: 'a.md', content: 'x', tenant: 'globex' });
      expect([tenant.status, tenant.error?.code]).toEqual(['rejected', 'TENANT_ARGUMENT']);
      expect(asked).toEqual([]);

      const inside = await editor.call('files/write_file', { path: 'a.md', content: 'x' });
      expect(inside.status).toBe('committed');
      expect(asked).toEqual([JSON.stringify({ path: 'a.md', content: 'x' })]);
    } finally {
      await runtime.shutdown();
    }
  });

  it('is the only wait in authorizing: a call that must ask waits there, one the policy answers never enters it', async () => {
    const visited = new Map<string, Set<string>>();
    const env = process.env.MCP_ACTORS_PID_LOG ? { MCP_ACTORS_PID_LOG: process.env.MCP_ACTORS_PID_LOG } : {};
    const runtime = await createRuntime({
      config: {
        servers: { files: { command: process.execPath, args: [referenceServerPath('filesystem'), '${SANDBOX_ROOT}'], env } },
        skills: { editing: { mcp_servers: [{ server: 'files', include: ['write_file'] }] } },
        actors: {
          asker: { skills: ['editing'], permissions: { execute: 'ask' } },
          doer: { skills: ['editing'], permissions: { execute: 'allow' } },
        },
      },
      approve: () => true,
      inspect: (event) => {
        if (event.type !== '@xstate.snapshot') return;
        const id = (event.actorRef as { id?: string }).id ?? '';
        if (!id.startsWith('call:')) return;
        const actor = id.split(':')[1] ?? '';
        if (!visited.has(actor)) visited.set(actor, new Set());
        visited.get(actor)!.add(String((event.snapshot as { value?: unknown }).value));
      },
    });
    try {
      const sandbox = await runtime.createSandbox(project);
      const asker = await runtime.activate('asker', { tenant: 'acme', sandbox });
      const doer = await runtime.activate('doer', { tenant: 'acme', sandbox });
      expect((await asker.call('files/write_file', { path: 'b.md', content: 'b' })).status).toBe('committed');
      expect((await doer.call('files/write_file', { path: 'c.md', content: 'c' })).status).toBe('committed');
      expect(visited.get('asker')?.has('authorizing')).toBe(true);
      expect(visited.get('doer')?.has('authorizing')).toBe(false);
      // Both still take the sandbox's steps.
      for (const actor of ['asker', 'doer'])
        expect([...(visited.get(actor) ?? [])]).toEqual(expect.arrayContaining(['checkpointing', 'invoking', 'done']));
    } finally {
      await runtime.shutdown();
    }
  });
});
