/**
 * A confined @modelcontextprotocol/server-filesystem still does all its normal work in the sandbox
 * (issue 15): every one of its tools, through the runtime, with the server running inside
 * bubblewrap (the default for a sandboxed server where the probe succeeds) — the writes land in the
 * sandbox and in the change set, the reads see the sandbox, and the host project is untouched
 * until applyToHost().
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/runtime/create-runtime.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { referenceServerPath } from '../../src/testing/reference-servers.js';
import { createGitProject } from '../support/git-project.js';
import { requireBwrap } from '../support/run-link-race.js';

let project: string;
let runtime: Runtime | undefined; // unset in afterAll when beforeAll failed before it
let sandbox: Sandbox;
let call: (
  tool: string,
  args: Record<string, unknown>,
) => Promise<{ status: string; text: string; changes: readonly { path: string; kind: string }[] }>;

beforeAll(async () => {
  requireBwrap();
  project = createGitProject({ 'src/main.py': 'print(1)\n', 'docs/guide.md': '# Guide\nstep one\n', 'README.md': '# demo\n' });
  runtime = await createRuntime({
    config: {
      servers: { files: { command: process.execPath, args: [referenceServerPath('filesystem'), '${SANDBOX_ROOT}'] } },
      skills: { edit: { mcp_servers: ['files'] } },
      actors: { editor: { skills: ['edit'], permissions: { execute: 'allow' } } },
    },
  });
  sandbox = await runtime.createSandbox(project);
  const editor = await runtime.activate('editor', { tenant: 't', sandbox });
  call = async (tool, args) => {
    const outcome = await editor.call(`files/${tool}`, args);
    const text = (outcome.result?.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    return { status: outcome.status, text, changes: outcome.changes };
  };
}, 60_000);

afterAll(async () => {
  await runtime?.shutdown();
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('a confined server-filesystem', () => {
  it('runs confined', async () => {
    await call('list_allowed_directories', {});
    expect(runtime!.status().servers.find((s) => s.server === 'files')?.confinement).toEqual({ confined: true, state: 'confined' });
  });

  it('reads: read_text_file, read_file, read_multiple_files, get_file_info, list_allowed_directories', async () => {
    expect(await call('read_text_file', { path: 'src/main.py' })).toMatchObject({ status: 'committed', text: 'print(1)\n' });
    expect(await call('read_text_file', { path: 'docs/guide.md', head: 1 })).toMatchObject({ status: 'committed', text: '# Guide' });
    expect(await call('read_file', { path: 'README.md' })).toMatchObject({ status: 'committed', text: '# demo\n' });
    const many = await call('read_multiple_files', { paths: ['src/main.py', 'README.md'] });
    expect(many.status).toBe('committed');
    expect(many.text).toContain('print(1)');
    expect(many.text).toContain('# demo');
    const info = await call('get_file_info', { path: 'src/main.py' });
    expect(info.status).toBe('committed');
    expect(info.text).toMatch(/size: 9/);
    expect((await call('list_allowed_directories', {})).status).toBe('committed');
  });

  it('lists: list_directory, list_directory_with_sizes, directory_tree, search_files', async () => {
    const listing = await call('list_directory', { path: '.' });
    expect(listing.status).toBe('committed');
    expect(listing.text).toContain('[DIR] src');
    expect(listing.text).toContain('[FILE] README.md');
    expect((await call('list_directory_with_sizes', { path: 'src' })).text).toContain('main.py');
    const tree = await call('directory_tree', { path: 'docs' });
    expect(tree.status).toBe('committed');
    expect(tree.text).toContain('guide.md');
    const found = await call('search_files', { path: '.', pattern: '**/*.md' });
    expect(found.status).toBe('committed');
    expect(found.text).toContain('guide.md');
  });

  it('writes: write_file, edit_file, create_directory, move_file — in the sandbox and its change set, not on the host', async () => {
    const written = await call('write_file', { path: 'notes/todo.md', content: 'buy milk\n' });
    // server-filesystem cannot write into a missing folder; make it first, as an agent would.
    if (written.status !== 'committed') {
      expect((await call('create_directory', { path: 'notes' })).status).toBe('committed');
      expect((await call('write_file', { path: 'notes/todo.md', content: 'buy milk\n' })).changes).toEqual([
        expect.objectContaining({ path: 'notes/todo.md', kind: 'added' }),
      ]);
    }
    expect(readFileSync(join(sandbox.root, 'notes/todo.md'), 'utf8')).toBe('buy milk\n');

    const edited = await call('edit_file', { path: 'src/main.py', edits: [{ oldText: 'print(1)', newText: 'print(2)' }] });
    expect(edited.status).toBe('committed');
    expect(edited.changes).toEqual([expect.objectContaining({ path: 'src/main.py', kind: 'modified' })]);
    expect(readFileSync(join(sandbox.root, 'src/main.py'), 'utf8')).toBe('print(2)\n');

    expect((await call('create_directory', { path: 'archive/2026' })).status).toBe('committed');
    expect(existsSync(join(sandbox.root, 'archive/2026'))).toBe(true);

    const moved = await call('move_file', { source: 'docs/guide.md', destination: 'archive/2026/guide.md' });
    expect(moved.status).toBe('committed');
    expect(moved.changes.map((change) => `${change.kind} ${change.path}`).sort()).toEqual([
      'added archive/2026/guide.md',
      'deleted docs/guide.md',
    ]);

    // The host project is untouched until the change set is applied.
    expect(readFileSync(join(project, 'src/main.py'), 'utf8')).toBe('print(1)\n');
    expect(existsSync(join(project, 'notes/todo.md'))).toBe(false);
    await sandbox.applyToHost();
    expect(readFileSync(join(project, 'src/main.py'), 'utf8')).toBe('print(2)\n');
    expect(readFileSync(join(project, 'archive/2026/guide.md'), 'utf8')).toBe('# Guide\nstep one\n');
    expect(existsSync(join(project, 'docs/guide.md'))).toBe(false);
  });

  it('refuses a path outside the sandbox before the server sees it, and the kernel would refuse it after', async () => {
    const outside = await call('write_file', { path: '/etc/mcp-actors-should-not-exist', content: 'x' });
    expect(outside.status).toBe('rejected');
    expect(existsSync('/etc/mcp-actors-should-not-exist')).toBe(false);
  });
});
