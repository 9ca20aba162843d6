/**
 * The `agents` command as a real process (`node bin/agents.mjs`, compiled from src/cli) against
 * a temporary agents.yaml with the fixture server and @modelcontextprotocol/server-filesystem.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readProcStat } from '../../src/process/process-table.js';
import { referenceServerPath } from '../../src/testing/reference-servers.js';
import { agentsBin, agentsProject, fixtureServer, pidLogEnv, repoRoot, runAgents, type AgentsRun } from '../support/agents-cli.js';
import { createGitProject } from '../support/git-project.js';
import { expectAllGone } from '../support/processes.js';

const projects: string[] = [];

beforeAll(() => {
  if (!existsSync(join(repoRoot, 'dist/cli/main.js')))
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
});
const cli = agentsProject(
  'mcp-actors-cli-',
  () => ({
    servers: {
      fixture: fixtureServer(),
      files: { command: process.execPath, args: [referenceServerPath('filesystem'), '${SANDBOX_ROOT}'], env: pidLogEnv() },
    },
    skills: {
      ops: { mcp_servers: ['fixture'] },
      editing: { mcp_servers: [{ server: 'files', include: ['write_file', 'read_text_file'] }] },
    },
    actors: {
      helper: { skills: ['ops'] },
      editor: { skills: ['editing'], permissions: { execute: 'ask' } },
    },
  }),
  () => ({
    'broken.yaml': 'servers:\n  fixture:\n    comand: node\nactors:\n  helper:\n    skills: [nope]\n',
    'claude_desktop_config.json': JSON.stringify({
      mcpServers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { TOKEN: '${MEMORY_TOKEN}' } } },
    }),
  }),
);

afterAll(() => {
  for (const project of projects) rmSync(project, { recursive: true, force: true });
});

/** Runs `agents` in the temp directory; `input` is written to its stdin, which is then closed. */
const agents = (args: readonly string[], input = ''): Promise<AgentsRun> => runAgents(args, { cwd: cli.dir, timeoutMs: 15_000, input });

/** Processes whose parent is `pid` (Linux). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .map(Number)
    .filter((entry) => Number.isInteger(entry) && readProcStat(entry)?.ppid === pid);
}

describe('agents (the CLI)', () => {
  it('validates agents.yaml and summarizes servers, skills and actors', async () => {
    const result = await agents(['validate']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('agents.yaml is valid: 2 servers, 2 skills, 2 actors');
    expect(result.stdout).toMatch(/files +stdio +\S+ \S+server-filesystem\S+ \$\{SANDBOX_ROOT\}/);
    expect(result.stdout).toMatch(/editing +servers: files \(include write_file, read_text_file\)/);
    expect(result.stdout).toMatch(/editor +skills: editing +execute: ask/);
  });

  it('lists every problem of a broken file with file:line:col and exits 1', async () => {
    const result = await agents(['validate', '--file', 'broken.yaml']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('error [CONFIG_INVALID]: invalid agents file broken.yaml (3 problems):');
    expect(result.stderr).toContain('servers.fixture.comand: broken.yaml:3:5: is not a known key — did you mean "command"?');
    expect(result.stderr).toContain('actors.helper.skills.0: broken.yaml:6:14: names skill "nope"');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('prints a claude_desktop_config.json as a servers: section with --dry-run, keeping ${VAR} references', async () => {
    const result = await agents(['import', 'claude_desktop_config.json', '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        '# servers imported from claude_desktop_config.json by agents import',
        'servers:',
        '  memory:',
        '    command: npx',
        '    args:',
        '      - -y',
        '      - "@modelcontextprotocol/server-memory"',
        '    env:',
        '      TOKEN: ${MEMORY_TOKEN}',
        '',
      ].join('\n'),
    );
  });

  it("lists an actor's tools with category, capabilities and the source of read-only", async () => {
    const result = await agents(['tools', 'helper', '--tenant', 'acme']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('actor helper for tenant acme:');
    expect(result.stdout).toMatch(/fixture\/echo +execute +writes, destructive +default: nothing says it only reads/);
    expect(result.stdout).toMatch(/fixture\/annotated_read +read +read-only +name: word "read" in name/);
  });

  it('calls fixture/echo after asking on the terminal, prints the answer and exits 0', async () => {
    const result = await agents(['call', 'helper', 'fixture/echo', '{"message":"hello from the cli"}', '--tenant', 'acme'], 'y\n');
    expect(result.stderr).toBe(
      '(execute because of no hint: unknown tools count as writing: nothing says it only reads: no read word in its name, no read-only hint (override read_only: true if it does))\n' +
        'allow fixture/echo (execute, destructive)? [y/N] y\n',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^fixture\/echo: committed \(\d+ ms\)\n\nhello from the cli\n$/);
  });

  it('exits 1 when the call is not approved', async () => {
    const result = await agents(['call', 'helper', 'fixture/echo', '{"message":"x"}', '--tenant', 'acme'], 'n\n');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('fixture/echo: rejected');
    expect(result.stdout).toContain('error [PERMISSION_DENIED]');
  });

  it('writes in a sandbox and prints the diff; the host changes only with --apply', async () => {
    const project = createGitProject({ 'NOTES.md': 'hello\n' });
    projects.push(project);
    const args = [
      'call',
      'editor',
      'files/write_file',
      '{"path":"NOTES.md","content":"changed\\n"}',
      '--tenant',
      'acme',
      '--sandbox',
      project,
      '--yes',
    ];

    const dry = await agents(args);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('files/write_file: committed');
    expect(dry.stdout).toContain('  modified  NOTES.md');
    expect(dry.stdout).toContain(`diff of the sandbox of ${project}:`);
    expect(dry.stdout).toContain('-hello\n+changed\n');
    expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toBe('hello\n');

    const applied = await agents([...args, '--apply']);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(`applied to ${project}: NOTES.md`);
    expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toBe('changed\n');
  });

  it('checks that the servers of an actor start, and leaves none running', async () => {
    const result = await agents(['status', 'helper', '--tenant', 'acme', '--json']);
    expect(result.code).toBe(0);
    const status = JSON.parse(result.stdout) as { ok: boolean; servers: { server: string; state: string; pid: number }[] };
    expect(status.ok).toBe(true);
    expect(status.servers).toEqual([expect.objectContaining({ server: 'fixture', tenant: 'acme', state: 'RUNNING', restarts: 0 })]);
    await expectAllGone(status.servers.map((s) => s.pid));
  });

  it.runIf(process.platform === 'linux')('stops every server and exits 130 on Ctrl+C (SIGINT) while waiting for an answer', async () => {
    const child = spawn(process.execPath, [agentsBin, 'call', 'helper', 'fixture/echo', '{"message":"x"}', '--tenant', 'acme'], {
      cwd: cli.dir,
      env: process.env,
    });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no question after 10 s: ${stderr}`)), 10_000);
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('[y/N]')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const children = childrenOf(child.pid!);
    expect(children.some((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('fixture-server.mjs'))).toBe(true);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toContain('SIGINT: stopping the servers');
    await expectAllGone(children, children);
  });

  it('exits 2 with a suggestion for an unknown command', async () => {
    const result = await agents(['valdate']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: unknown command "valdate"; did you mean "validate"? (agents --help lists the commands)\n',
    });
  });
});
