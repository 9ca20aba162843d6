import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../src/cli/cli-io.js';
import { run } from '../../../src/cli/main.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-actors-cli-run-'));
  writeFileSync(
    join(dir, 'agents.yaml'),
    'servers:\n  memory:\n    command: npx\n    args: [-y, "@modelcontextprotocol/server-memory", "--token=${MY_TOKEN}"]\nskills:\n  notes:\n    mcp_servers: [memory]\nactors:\n  scribe:\n    skills: [notes]\n',
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function agents(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: new PassThrough(),
    cwd: dir,
    env,
    exit: (code) => {
      throw new Error(`exit(${code}) was not expected`);
    },
    onSignal: () => () => undefined,
  };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}

describe('run', () => {
  it('prints the help and the version of package.json', async () => {
    const help = await agents(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: agents <command>');
    const version = await agents(['--version']);
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(version.stdout).toBe(`${pkg.version}\n`);
  });

  it('exits 2 with one line for a wrong command line', async () => {
    const result = await agents(['tols']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: unknown command "tols"; did you mean "tools"? (agents --help lists the commands)\n',
    });
  });

  it('validates the agents.yaml of its working directory without printing the values of ${VAR}', async () => {
    const result = await agents(['validate'], { MY_TOKEN: 'sekrit' });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('is valid: 1 server, 1 skill, 1 actor');
    expect(result.stdout).toContain('npx -y @modelcontextprotocol/server-memory --token=${MY_TOKEN}');
    expect(result.stdout).not.toContain('sekrit');
  });

  it('validates a file whose ${VAR} is not set, with a warning naming it and where it is', async () => {
    const result = await agents(['validate']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^warning: servers\.memory\.args\.2: .*agents\.yaml:4:\d+: MY_TOKEN is not set in the environment/);
    expect(result.stdout).toContain('is valid: 1 server');
  });

  it('prints error [CODE]: message and exits 1 for an error of the runtime, with JSON on stdout under --json', async () => {
    const result = await agents(['validate', '--json', '--strict']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^error \[CONFIG_INVALID\]: invalid agents file .*agents\.yaml \(1 problem\):\n {2}- servers\.memory\.args\.2: .*agents\.yaml:4:/,
    );
    expect(result.stderr).not.toContain('    at ');
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, error: { code: 'CONFIG_INVALID' } });
  });

  it('shows the stack trace only under --debug', async () => {
    const result = await agents(['validate', '--file', 'missing.yaml', '--debug']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error [CONFIG_INVALID]');
    expect(result.stderr).toContain('    at ');
  });
});
