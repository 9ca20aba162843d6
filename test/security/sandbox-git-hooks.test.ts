/**
 * Attack (critical): a confined server replaces the worktree's `.git` link with a git directory
 * holding hooks (`post-index-change`, an fsmonitor), then waits for the host to run git in the
 * worktree (`diff()`, `changedFiles()`, `applyToHost()`): a planted hook would run on the host,
 * outside any box. Two walls: a confined server cannot replace the link (it is bound read-only),
 * and the host's git never discovers a repository from the worktree (`GIT_DIR` pinned, no hooks),
 * so even a link replaced by an unconfined server runs nothing — and is put back.
 */
import { existsSync, lstatSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/runtime/create-runtime.js';
import { Sandbox } from '../../src/sandbox/sandbox.js';
import { createGitProject } from '../support/git-project.js';
import { plantGitDir } from '../support/plant-git.mjs';
import { requireBwrap } from '../support/run-link-race.js';

const PROBE = fileURLToPath(new URL('../support/confine-probe-server.mjs', import.meta.url));

let project: string;
const markers: string[] = [];
const newMarker = (): string => {
  const marker = join(tmpdir(), `mcp-actors-hook-ran-${randomUUID()}`);
  markers.push(marker);
  return marker;
};

beforeAll(() => {
  requireBwrap();
  project = createGitProject({ 'src/main.py': 'print(1)\n', 'README.md': '# demo\n' });
});

afterEach(() => {
  for (const marker of markers.splice(0)) rmSync(marker, { force: true });
});

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('a git directory planted in a sandbox never runs on the host', () => {
  let runtime: Runtime | undefined;
  afterEach(async () => {
    await runtime?.shutdown();
    runtime = undefined;
  });

  it('a confined read-only tool cannot replace the worktree .git link, and diff() runs no hook', async () => {
    const marker = newMarker();
    runtime = await createRuntime({
      config: {
        // The marker is built into the attacker, not passed as an argument.
        servers: { probe: { command: process.execPath, args: [PROBE], env: { PLANT_MARKER: marker } } },
        skills: { look: { mcp_servers: ['probe'] } },
        actors: { looker: { skills: ['look'], permissions: { execute: 'allow' } } },
      },
    });
    const sandbox = await runtime.createSandbox(project);
    const looker = await runtime.activate('looker', { tenant: 't', sandbox });
    const link = readFileSync(join(sandbox.root, '.git'), 'utf8');
    const outcome = await looker.call('probe/read_git_status', { path: join(project, '.git') });
    expect(outcome.status).toBe('committed');
    const text = (outcome.result?.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
    // The plant fails (EBUSY on Node 20; Node 24's rmSync reports a mount point with an empty code).
    expect(text).toMatch(/^error/);
    expect(runtime.status().servers.find((s) => s.server === 'probe')?.confinement).toEqual({ confined: true, state: 'confined' });
    await sandbox.diff();
    await sandbox.changedFiles();
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(join(sandbox.root, '.git'), 'utf8')).toBe(link);
  });

  it('a link replaced behind the runtime (an unconfined server) runs no hook in diff, changedFiles or applyToHost, and is put back', async () => {
    const sandbox = await Sandbox.create({ projectDir: project });
    try {
      const link = readFileSync(join(sandbox.root, '.git'), 'utf8');
      const marker = newMarker();
      plantGitDir(join(sandbox.root, '.git'), marker);
      expect(await sandbox.changedFiles()).toEqual([]);
      expect(existsSync(marker)).toBe(false);
      expect(lstatSync(join(sandbox.root, '.git')).isFile()).toBe(true);
      expect(readFileSync(join(sandbox.root, '.git'), 'utf8')).toBe(link);

      plantGitDir(join(sandbox.root, '.git'), marker);
      await sandbox.diff();
      plantGitDir(join(sandbox.root, '.git'), marker);
      await sandbox.applyToHost();
      expect(existsSync(marker)).toBe(false);
    } finally {
      await sandbox.dispose();
    }
  });
});
