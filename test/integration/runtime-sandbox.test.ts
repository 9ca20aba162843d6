/**
 * The runtime with a sandbox: ${SANDBOX_ROOT} filled in when the server actor starts, the sandbox
 * offered as MCP roots, calls checkpointed and rolled back, the change set, applyToHost, sharing
 * by sandbox, and nothing left behind.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/runtime/create-runtime.js';
import { fixtureServerPath } from '../../src/testing/fixture.js';
import { referenceServerPath } from '../../src/testing/reference-servers.js';
import { createGitProject } from '../support/git-project.js';
import { expectAllGone } from '../support/processes.js';

const pidLog = process.env.MCP_ACTORS_PID_LOG ? { MCP_ACTORS_PID_LOG: process.env.MCP_ACTORS_PID_LOG } : {};
let project: string;
let runtime: Runtime;

beforeEach(async () => {
  project = createGitProject({ 'src/main.py': 'print(1)\n' });
  runtime = await createRuntime({
    config: {
      servers: {
        files: { command: process.execPath, args: [referenceServerPath('filesystem'), '${SANDBOX_ROOT}'], env: pidLog },
        rootsonly: { command: process.execPath, args: [referenceServerPath('filesystem')], env: pidLog },
        fixture: {
          command: process.execPath,
          args: [fixtureServerPath()],
          cwd: '${SANDBOX_ROOT}',
          env: { ...pidLog, WHERE: '${SANDBOX_ROOT}' },
        },
      },
      skills: {
        edit: { mcp_servers: ['files', 'fixture'] },
        roots: { mcp_servers: ['rootsonly'] },
      },
      actors: {
        editor: { skills: ['edit'], permissions: { execute: 'allow' } },
        reader: { skills: ['roots'], permissions: { execute: 'allow' } },
      },
    },
  });
});

afterEach(async () => {
  const pids = runtime
    .status()
    .servers.map((s) => s.pid)
    .filter((p): p is number => p !== undefined);
  await runtime.shutdown();
  await expectAllGone(pids, pids);
  rmSync(project, { recursive: true, force: true });
});

function text(outcome: { result?: { content: readonly Record<string, unknown>[] } | undefined }): string {
  return String(outcome.result?.content[0]?.text);
}

describe('the runtime in a sandbox', () => {
  it('fills in ${SANDBOX_ROOT}, writes only the sandbox, tracks changes, rolls back and applies home', async () => {
    const sandbox = await runtime.createSandbox(project);
    const editor = await runtime.activate('editor', { tenant: 'acme', sandbox });
    // The server was given the sandbox root; the agent sees it as the logical root, '.'.
    expect(text(await editor.call('fixture/env', { name: 'WHERE' }))).toBe('.');
    expect(runtime.status().servers.find((s) => s.server === 'fixture')?.sandbox).toBe(sandbox.root);
    // Sandboxed servers are confined by default where bubblewrap works (it is installed for the tests).
    expect(runtime.status().servers.find((s) => s.server === 'fixture')?.confinement).toEqual({ confined: true, state: 'confined' });

    const write = await editor.call('files/write_file', { path: 'src/main.py', content: 'print(2)\n' });
    expect(write.status).toBe('committed');
    expect(text(write)).toBe('Successfully wrote to src/main.py');
    expect(readFileSync(join(sandbox.root, 'src/main.py'), 'utf8')).toBe('print(2)\n');
    expect(readFileSync(join(project, 'src/main.py'), 'utf8')).toBe('print(1)\n');

    const failed = await editor.call('fixture/write_then_fail', { path: 'src/main.py', content: 'broken' });
    expect(failed.status).toBe('rolled-back');
    expect(readFileSync(join(sandbox.root, 'src/main.py'), 'utf8')).toBe('print(2)\n');

    const extra = await editor.call('files/write_file', { path: 'notes.md', content: 'n' });
    expect(editor.checkpoints().map((c) => c.id)).toContain(extra.checkpointId);
    expect((await editor.changes()).map((c) => `${c.kind} ${c.path}`).sort()).toEqual(['added notes.md', 'modified src/main.py']);
    await editor.rollback(extra.checkpointId);
    expect(existsSync(join(sandbox.root, 'notes.md'))).toBe(false);

    await sandbox.applyToHost();
    expect(readFileSync(join(project, 'src/main.py'), 'utf8')).toBe('print(2)\n');
  });

  it('offers the sandbox as MCP roots to a server that takes its directories from roots alone', async () => {
    const sandbox = await runtime.createSandbox(project);
    const reader = await runtime.activate('reader', { tenant: 'acme', sandbox });
    const read = await reader.call('rootsonly/read_text_file', { path: 'src/main.py' });
    expect(read.status).toBe('committed');
    expect(text(read)).toBe('print(1)\n');
  });

  it('shares a server actor between actors of one sandbox, and not across sandboxes', async () => {
    const first = await runtime.createSandbox(project);
    const second = await runtime.createSandbox(project);
    const a = await runtime.activate('editor', { tenant: 'acme', sandbox: first });
    const b = await runtime.activate('editor', { tenant: 'acme', sandbox: first });
    const c = await runtime.activate('editor', { tenant: 'acme', sandbox: second });
    await Promise.all([a, b, c].map((actor) => actor.call('fixture/echo', { message: 'x' })));
    const fixtures = runtime.status().servers.filter((s) => s.server === 'fixture');
    expect(fixtures.map((s) => s.actors).sort()).toEqual([1, 2]);
    expect(new Set(fixtures.map((s) => s.sandbox))).toEqual(new Set([first.root, second.root]));
  });

  it('works with await using: leaving the block shuts the runtime down and stops its servers', async () => {
    let pid: number | undefined;
    {
      await using scoped = await createRuntime({
        config: {
          servers: { fixture: { command: process.execPath, args: [fixtureServerPath()], env: pidLog } },
          skills: { s: { mcp_servers: ['fixture'] } },
          actors: { a: { skills: ['s'], permissions: { execute: 'allow' } } },
        },
      });
      const actor = await scoped.activate('a', { tenant: 'acme' });
      await actor.call('fixture/echo', { message: 'x' });
      pid = scoped.status().servers[0]?.pid;
      expect(pid).toBeDefined();
    }
    await expectAllGone([pid!], [pid!]);
  });

  it('gives actors activated at the same time on one sandbox one workspace: one lock, one history', async () => {
    const sandbox = await runtime.createSandbox(project);
    const [a, b] = await Promise.all([
      runtime.activate('editor', { tenant: 'acme', sandbox }),
      runtime.activate('editor', { tenant: 'acme', sandbox }),
    ]);
    const first = await a.call('files/write_file', { path: 'a.txt', content: 'a' });
    const second = await b.call('files/write_file', { path: 'b.txt', content: 'b' });
    expect(b.checkpoints().map((c) => c.id)).toEqual(expect.arrayContaining([first.checkpointId, second.checkpointId]));
    expect((await a.changes()).map((c) => c.path).sort()).toEqual(['a.txt', 'b.txt']);
  });
});
