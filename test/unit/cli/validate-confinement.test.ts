import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../src/cli/cli-io.js';
import { isHostOnlyName } from '../../../src/cli/confinement-warnings.js';
import { run } from '../../../src/cli/main.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-actors-validate-confine-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function validate(yaml: string, ...flags: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = join(dir, `agents-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: new PassThrough(),
    cwd: dir,
    env: {},
    exit: (code) => {
      throw new Error(`exit(${code}) was not expected`);
    },
    onSignal: () => () => undefined,
  };
  const code = await run(['validate', '--file', file, ...flags], io);
  return { code, stdout, stderr: stderr.replaceAll(file, 'agents.yaml') };
}

const node = JSON.stringify(process.execPath);
const WEAK = `servers:
  open:
    command: ${node}
    confine: false
  lenient:
    command: ${node}
    confine: { fallback: true }
  moved:
    command: ${node}
    env:
      HOME: /var/tmp/elsewhere
      npm_config_cache: /var/tmp/npm
      XDG_CACHE_HOME: /var/tmp/cache
      LOG_LEVEL: debug
  remote:
    url: http://127.0.0.1:9/mcp
    confine: false
`;

// The first run imports the whole CLI: give it room on a busy machine.
describe('agents validate and what weakens confinement', { timeout: 30_000 }, () => {
  it('warns once per weakening setting, at its file:line:col, and still exits 0', async () => {
    const result = await validate(WEAK);
    expect(result.code).toBe(0);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(
      /^warning: servers\.open\.confine: agents\.yaml:4:5: confine: false runs this server unconfined even in a sandbox: .* — remove the line/,
    );
    expect(lines[1]).toMatch(
      /^warning: servers\.lenient\.confine\.fallback: agents\.yaml:7:16: fallback: true runs this server unconfined on a machine where confinement is unavailable/,
    );
    expect(lines[2]).toMatch(
      /^warning: servers\.moved\.env\.HOME: agents\.yaml:11:7: HOME is passed to the server but not used to decide confinement/,
    );
    expect(lines[3]).toMatch(
      /^warning: servers\.moved\.env\.npm_config_cache: agents\.yaml:12:7: npm_config_cache is passed to the server but not used to decide confinement/,
    );
    expect(lines[4]).toMatch(
      /^warning: servers\.moved\.env\.XDG_CACHE_HOME: agents\.yaml:13:7: XDG_CACHE_HOME is passed to the server but not used to decide confinement/,
    );
    expect(result.stderr).not.toContain('LOG_LEVEL');
    expect(result.stderr).not.toContain('servers.remote');
  });

  it('fails with --strict, after the same warnings; the JSON says ok: false', async () => {
    const strict = await validate(WEAK, '--strict');
    expect(strict.code).toBe(1);
    expect(strict.stderr.trimEnd().split('\n').at(-1)).toBe(
      'error: --strict: 5 settings weaken confinement (the warnings above); change them, or run without --strict',
    );
    const json = await validate(WEAK, '--strict', '--json');
    expect(json.code).toBe(1);
    const parsed = JSON.parse(json.stdout) as { ok: boolean; warnings: { path: string }[] };
    expect(parsed.ok).toBe(false);
    expect(parsed.warnings.map((warning) => warning.path)).toEqual([
      'servers.open.confine',
      'servers.lenient.confine.fallback',
      'servers.moved.env.HOME',
      'servers.moved.env.npm_config_cache',
      'servers.moved.env.XDG_CACHE_HOME',
    ]);
  });

  it('says nothing, even with --strict, about a file that leaves confinement alone', async () => {
    const result = await validate(
      `servers:\n  plain:\n    command: ${node}\n    confine: true\n    env: { LOG_LEVEL: debug }\n`,
      '--strict',
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
  });

  it('knows the names the runtime reads only from the host', () => {
    expect(
      ['HOME', 'path', 'TMPDIR', 'XDG_CONFIG_HOME', 'NPM_CONFIG_CACHE', 'npm_config_prefix', 'PNPM_HOME'].filter(isHostOnlyName),
    ).toHaveLength(7);
    expect(['LOG_LEVEL', 'GITHUB_TOKEN', 'HOMEPAGE', 'MYPATH'].filter(isHostOnlyName)).toEqual([]);
  });
});
