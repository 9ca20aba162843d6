/**
 * The reaper's life: it exists only while there is a group (server or git) to guard and a few
 * seconds after, is gone after `runtime.shutdown()`, and kills a git a SIGKILLed host left running.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { REAPER_LINGER_MS, liveGroups, reaperPid } from '../../src/process/process-groups.js';
import { isProcessAlive } from '../../src/process/process-table.js';
import { McpClient } from '../../src/client/mcp-client.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { runGitProcess } from '../../src/sandbox/git-process.js';
import { fixtureServerPath } from '../../src/testing/fixture.js';
import { fixtureServerConfig } from '../../src/testing/fixture.js';
import { descendantsOf, spawnedProcesses } from '../../src/testing/processes.js';
import { waitUntil } from '../support/wait.js';
import { ensureBuilt, repoRoot } from './support/run-host.js';

beforeAll(ensureBuilt);

const pidLog = process.env.MCP_ACTORS_PID_LOG ? { MCP_ACTORS_PID_LOG: process.env.MCP_ACTORS_PID_LOG } : {};

describe('the reaper', () => {
  it('is gone once runtime.shutdown() has resolved, and no child of the host is left', async () => {
    const runtime = await createRuntime({
      config: {
        servers: { fixture: { command: process.execPath, args: [fixtureServerPath()], env: pidLog } },
        skills: { ops: { mcp_servers: ['fixture'] } },
        actors: { a: { skills: ['ops'], permissions: { execute: 'allow' } } },
      },
    });
    const actor = await runtime.activate('a', { tenant: 't' });
    await actor.call('fixture/echo', { message: 'x' });
    const reaper = reaperPid();
    expect(reaper).toBeDefined();
    expect(isProcessAlive(reaper!)).toBe(true);
    await runtime.shutdown();
    expect(spawnedProcesses()).toEqual({ groups: [], members: [], reaper: undefined });
    expect(isProcessAlive(reaper!)).toBe(false);
    expect(descendantsOf()).toEqual([]);
  });

  it('stays while a group is tracked and leaves a few seconds after the last one ended', async () => {
    const client = new McpClient(fixtureServerConfig({ name: 'linger' }));
    await client.start();
    const reaper = reaperPid()!;
    expect(isProcessAlive(reaper)).toBe(true);
    await client.stop();
    // A git right after keeps the same reaper (no respawn per sandboxed write).
    await runGitProcess(['--version'], { env: process.env, errorCode: 'CHECKPOINT_FAILED', label: 'git --version', shownArgs: [] });
    expect(reaperPid()).toBe(reaper);
    expect(liveGroups().size).toBe(0);
    await waitUntil(() => !isProcessAlive(reaper), 'the reaper to leave', REAPER_LINGER_MS + 5_000);
    expect(reaperPid()).toBeUndefined();
  });

  it('tracks a git process like a server group while it runs', async () => {
    const running = runGitProcess(['-c', 'sleep 0.3'], {
      command: '/bin/sh',
      env: process.env,
      errorCode: 'CHECKPOINT_FAILED',
      label: 'sh',
      shownArgs: [],
    });
    await waitUntil(() => liveGroups().size === 1, 'the git group to be tracked', 5_000);
    const [pgid] = [...liveGroups()];
    expect(descendantsOf()).toContain(pgid);
    await running;
    expect(liveGroups().size).toBe(0);
  });

  it('kills the git a SIGKILLed host left running (it would go on holding index.lock)', async () => {
    const host = spawn(process.execPath, [fileURLToPath(new URL('./support/git-host.mjs', import.meta.url))], {
      cwd: repoRoot,
      env: { ...process.env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => host.once('exit', resolve));
    const line = await new Promise<string>((resolve) => createInterface({ input: host.stdout }).once('line', resolve));
    const { reaper } = JSON.parse(line) as { reaper: number };
    const git = descendantsOf(host.pid).filter((pid) => pid !== reaper);
    expect(git).toHaveLength(1);
    expect(isProcessAlive(reaper)).toBe(true);
    host.kill('SIGKILL');
    await exited;
    await waitUntil(() => !isProcessAlive(git[0]!) && !isProcessAlive(reaper), 'the git and the reaper to end', 5_000);
  });
});
