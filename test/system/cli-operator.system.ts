/**
 * The CLI in an operator's words: the tenant defaults to `local`, and a server whose start fails
 * twice with the same error is called permanent — the command stops waiting and says what to fix,
 * in config keys, not API names.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentsProject, fixtureServer, pidLogEnv, repoRoot, runAgents, spawnAgents } from '../support/agents-cli.js';

const project = agentsProject('mcp-actors-operator-', () => ({
  servers: {
    fixture: fixtureServer(),
    broken: fixtureServer(['--exit-on-start=3']),
  },
  skills: { ops: { mcp_servers: ['fixture'] }, bad: { mcp_servers: [{ server: 'broken', required: true }] } },
  actors: { helper: { skills: ['ops'] }, stuck: { skills: ['bad'] } },
}));

const agents = (args: string[]) => runAgents(args, { cwd: project.dir, timeoutMs: 80_000 });

describe('agents, in operator words', () => {
  it('runs an actor command without --tenant, for the tenant local', async () => {
    const result = await agents(['status', 'helper']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('actor helper for tenant local: every server is running');
  });

  it('takes the tenant from default_tenant in the file when --tenant is not given', async () => {
    writeFileSync(join(project.dir, 'tenanted.yaml'), `default_tenant: acme\n${readFileSync(join(project.dir, 'agents.yaml'), 'utf8')}`);
    const result = await agents(['status', 'helper', '--file', 'tenanted.yaml']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('actor helper for tenant acme: every server is running');
    const flagged = await agents(['status', 'helper', '--file', 'tenanted.yaml', '--tenant', 'globex']);
    expect(flagged.stdout).toContain('actor helper for tenant globex');
  });

  it('agents demo --inspect narrates the tour with the inspector on, prints its URL once and exits 0 by itself', async () => {
    const result = await agents(['demo', '--inspect', '--inspect-for', '0']);
    expect(result.code).toBe(0);
    expect(result.stdout.match(/Stately inspector: http:\/\/127\.0\.0\.1:\d+/g)).toHaveLength(1);
    expect(result.stdout).toContain('a path out of the sandbox → rejected (SANDBOX_PATH)');
    expect(result.stdout).toMatch(/Done in [\d.]+ s; no process left/);
  }, 90_000);

  it('on a terminal shows start progress with the restart count and what the server said', async () => {
    const run = spawnAgents(['status', 'stuck'], { cwd: project.dir, terminal: true });
    const code = await run.exited;
    const out = run.output();
    expect(code).toBe(1);
    expect(out).toMatch(/starting broken… restart 1\/5( in \d+ ms)?: .*fixture: exiting on start with code 3/);
    expect(out).toContain('looks permanent');
  }, 60_000);

  it('stops waiting when a start fails twice with the same error, and says what to fix in agents.yaml', async () => {
    const result = await agents(['status', 'stuck']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'server "broken" failed to start twice with the same error, which looks permanent, so agents stopped waiting',
    );
    expect(result.stderr).toContain('exited with code 3');
    expect(result.stderr).toContain('under servers.broken in agents.yaml');
    expect(result.stderr).not.toMatch(/start\(\)|reconnect\(\)/);
    expect(result.stdout).not.toContain('\u001b'); // piped: no progress line, no colour
    expect(result.stderr).not.toContain('starting broken…');
  });
});

/** A file as `agents import` leaves it: a literal key became `${BRAVE_API_KEY}`, which is not set here. */
const imported = agentsProject('mcp-actors-unset-var-', () => ({
  servers: {
    fixture: fixtureServer(),
    brave: { ...fixtureServer(), env: { ...pidLogEnv(), BRAVE_API_KEY: '${MCP_ACTORS_TEST_BRAVE_API_KEY}' } },
  },
  skills: { ops: { mcp_servers: ['fixture'] }, search: { mcp_servers: [{ server: 'brave', required: true }] } },
  actors: { tester: { skills: ['ops'] }, searcher: { skills: ['search'] } },
}));

describe('an unset ${VAR} is needed only by the server that uses it', () => {
  const run = async (args: string[]) => {
    const before = readFileSync(join(imported.dir, 'agents.yaml'), 'utf8');
    const result = await runAgents(args, { cwd: imported.dir, timeoutMs: 60_000 });
    expect(readFileSync(join(imported.dir, 'agents.yaml'), 'utf8')).toBe(before);
    return result;
  };

  it('lists the tools of an actor that uses none of its servers', async () => {
    const result = await run(['tools', 'tester']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('fixture/echo');
  });

  it('fails an actor that needs the server, naming the server and the variable', async () => {
    const result = await run(['tools', 'searcher']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'server "brave" needs MCP_ACTORS_TEST_BRAVE_API_KEY, which is not set in the environment (servers.brave.env.BRAVE_API_KEY at agents.yaml:',
    );
  });

  it('validate warns per server, and --strict refuses the file', async () => {
    const loose = await run(['validate']);
    expect(loose.code).toBe(0);
    expect(loose.stderr).toMatch(
      /^warning: servers\.brave\.env\.BRAVE_API_KEY: .*MCP_ACTORS_TEST_BRAVE_API_KEY is not set in the environment — server "brave" cannot start without it/,
    );
    const strict = await run(['validate', '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('server "brave" cannot start without it');
  });
});

describe('agents tool add --check with the runtime placeholders', () => {
  const project = agentsProject('mcp-actors-check-placeholder-', () => ({ servers: { fixture: fixtureServer() } }));
  const filesystemServer = join(repoRoot, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
  const checkFolders = () => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith('agents-check-')));

  it('starts the server in a throwaway sandbox for ${SANDBOX_ROOT}, removes it, and writes the entry as typed', async () => {
    const before = checkFolders();
    const args = ['tool', 'add', 'files', '--command', process.execPath, '--arg', filesystemServer, '--arg', '${SANDBOX_ROOT}', '--check'];
    const result = await runAgents(args, { cwd: project.dir, timeoutMs: 60_000 });
    expect(result.stderr).not.toContain('error');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /server "files" started \(\$\{SANDBOX_ROOT\} was a throwaway folder, now removed\) and lists \d+ tools: .*read_text_file/,
    );
    expect(readFileSync(join(project.dir, 'agents.yaml'), 'utf8')).toContain('${SANDBOX_ROOT}');
    expect([...checkFolders()].filter((name) => !before.has(name))).toEqual([]);
  });
});
