/**
 * What the `agents` command prints never holds a secret, run as a user runs it (a real process,
 * a real agents.yaml, a real fixture server):
 * - a YAML mistake on a header line does not quote the header's value (in the key path the broken
 *   line makes, or in "got ..." and "write ..." of a wrong type), nor a `${VAR}` expansion;
 * - `agents call` prints a tool's text, failed or not, only redacted: a `${VAR}` secret the server
 *   answers with, as is, upper-cased or in base64, shows as [redacted].
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentsProject, fixtureServer, runAgents } from '../support/agents-cli.js';

const SECRET = 'sk-live-7Hq2pZx9Wm4Rt8Ld';
const dir = mkdtempSync(join(tmpdir(), 'mcp-actors-secret-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A project whose agents.yaml is `text`, as written by hand. */
function projectWith(name: string, text: string): string {
  const project = mkdtempSync(join(dir, `${name}-`));
  writeFileSync(join(project, 'agents.yaml'), text);
  return project;
}

/** Every form of the secret a reader could decode. */
const forms = (secret: string): string[] => [
  secret,
  secret.toUpperCase(),
  Buffer.from(secret).toString('base64').slice(0, 24),
  Buffer.from(`x:${secret}`).toString('base64').slice(4, 28),
];

describe('a YAML mistake near a secret', () => {
  const cases = {
    'an unquoted colon in a header value': `servers:\n  remote:\n    url: http://127.0.0.1:9/mcp\n    headers:\n      Authorization: Bearer ${SECRET}: x\n`,
    'a number where a header value must be a string': `servers:\n  remote:\n    url: http://127.0.0.1:9/mcp\n    headers:\n      X-Api-Key: 4096409640964096\n`,
    'a ${VAR} expanding to a url that is not http': `servers:\n  remote:\n    url: "\${REMOTE_URL}"\n`,
  };
  for (const [name, text] of Object.entries(cases)) {
    it(`is reported without the value: ${name}`, { timeout: 30_000 }, async () => {
      const project = projectWith('yaml', text);
      const env = { REMOTE_URL: `ftp://deploy:${SECRET}@example.test/mcp` };
      const runs = [
        await runAgents(['validate'], { cwd: project, timeoutMs: 20_000, env }),
        await runAgents(['validate', '--json'], { cwd: project, timeoutMs: 20_000, env }),
      ];
      const printed = runs.map((run) => run.stdout + run.stderr).join('\n');
      // The problem is reported, at its key.
      expect(runs.map((run) => run.code)).toEqual([1, 1]);
      expect(printed).toMatch(/servers\.remote\.(headers\.(Authorization|X-Api-Key)|url)/);
      for (const form of [...forms(SECRET), '4096409640964096']) expect(printed).not.toContain(form);
    });
  }
});

describe('agents call', () => {
  const project = agentsProject('mcp-actors-secret-call-', () => ({
    servers: { fixture: { ...fixtureServer(), env: { ...fixtureServer().env, API_KEY: '${API_KEY}' } } },
    skills: { tools: { mcp_servers: ['fixture'] } },
    actors: { helper: { skills: ['tools'] } },
  }));
  const call = (tool: string, args: unknown, json = false) =>
    runAgents(['call', 'helper', tool, JSON.stringify(args), '--tenant', 'acme', '--yes', ...(json ? ['--json'] : [])], {
      cwd: project.dir,
      timeoutMs: 30_000,
      env: { API_KEY: SECRET },
    });

  it('prints a failed tool text only redacted, whatever the encoding the server used', { timeout: 60_000 }, async () => {
    const message = `denied: ${SECRET.toUpperCase()} / ${Buffer.from(`x:${SECRET}`).toString('base64')}`;
    const runs = [await call('fixture/fail', { message }), await call('fixture/fail', { message }, true)];
    const printed = runs.map((run) => run.stdout + run.stderr).join('\n');
    expect(runs.map((run) => run.code)).toEqual([1, 1]);
    expect(runs[0]!.stdout).toContain('denied: [redacted]');
    for (const form of forms(SECRET)) expect(printed).not.toContain(form);
  });

  it('prints a tool answer that holds a secret only redacted', { timeout: 60_000 }, async () => {
    const runs = [await call('fixture/env', { name: 'API_KEY' }), await call('fixture/env', { name: 'API_KEY' }, true)];
    const printed = runs.map((run) => run.stdout + run.stderr).join('\n');
    expect(runs.map((run) => run.code)).toEqual([0, 0]);
    expect(runs[0]!.stdout).toContain('[redacted]');
    for (const form of forms(SECRET)) expect(printed).not.toContain(form);
  });
});
