/**
 * The CLI in an operator's words: the tenant defaults to `local`, and a server whose start fails
 * twice with the same error is called permanent — the command stops waiting and says what to fix,
 * in config keys, not API names.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServerPath } from '../../src/testing/fixture.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/agents.mjs');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-actors-operator-'));
  const env = process.env.MCP_ACTORS_PID_LOG ? { MCP_ACTORS_PID_LOG: process.env.MCP_ACTORS_PID_LOG } : {};
  writeFileSync(
    join(dir, 'agents.yaml'),
    stringify({
      servers: {
        fixture: { command: process.execPath, args: [fixtureServerPath()], env },
        broken: { command: process.execPath, args: [fixtureServerPath(), '--exit-on-start=3'], env },
      },
      skills: { ops: { mcp_servers: ['fixture'] }, bad: { mcp_servers: [{ server: 'broken', required: true }] } },
      actors: { helper: { skills: ['ops'] }, stuck: { skills: ['bad'] } },
    }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function agents(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, ...args], { cwd: dir, timeout: 80_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('agents, in operator words', () => {
  it('runs an actor command without --tenant, for the tenant local', async () => {
    const result = await agents(['status', 'helper']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('actor helper for tenant local: every server is running');
  });

  it('takes the tenant from default_tenant in the file when --tenant is not given', async () => {
    const { readFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'tenanted.yaml'), `default_tenant: acme\n${readFileSync(join(dir, 'agents.yaml'), 'utf8')}`);
    const result = await agents(['status', 'helper', '--file', 'tenanted.yaml']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('actor helper for tenant acme: every server is running');
    const flagged = await agents(['status', 'helper', '--file', 'tenanted.yaml', '--tenant', 'globex']);
    expect(flagged.stdout).toContain('actor helper for tenant globex');
  });

  it('agents demo --inspect narrates the tour with the inspector on, prints its URL once and exits 0 by itself', async () => {
    const result = await agents(['demo', '--inspect']);
    expect(result.code).toBe(0);
    expect(result.stdout.match(/Stately inspector: http:\/\/127\.0\.0\.1:\d+/g)).toHaveLength(1);
    expect(result.stdout).toContain('a path out of the sandbox → rejected (SANDBOX_PATH)');
    expect(result.stdout).toMatch(/Done in [\d.]+ s; no process left/);
  }, 90_000);

  it('on a terminal shows start progress with the restart count and what the server said', async () => {
    const { spawn } = await import('node:child_process');
    const command = [process.execPath, bin, 'status', 'stuck'].map((part) => `'${part}'`).join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TERM: 'xterm' } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(out).toMatch(/starting broken… restart 1\/5( in \d+ ms)?: .*fixture: exiting on start with code 3/);
    expect(out).toContain('looks permanent');
  }, 60_000);

  it('stops waiting when a start fails twice with the same error, and says what to fix in agents.yaml', async () => {
    const result = await agents(['status', 'stuck']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('server "broken" failed to start twice with the same error, which looks permanent, so agents stopped waiting');
    expect(result.stderr).toContain('exited with code 3');
    expect(result.stderr).toContain('under servers.broken in agents.yaml');
    expect(result.stderr).not.toMatch(/start\(\)|reconnect\(\)/);
    expect(result.stdout).not.toMatch(/\u001b/); // piped: no progress line, no colour
    expect(result.stderr).not.toContain('starting broken…');
  });
});
