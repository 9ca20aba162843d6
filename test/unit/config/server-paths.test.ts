import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../../src/client/mcp-client.js';
import { checkAgentsFile, loadAgentsFile } from '../../../src/config/agents-file.js';
import { isConfigError } from '../../../src/errors/config-error.js';
import { fixtureServerPath } from '../../../src/testing/fixture.js';
import { stringMatching } from '../../support/matchers.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-actors-paths-'));
  // The fixture server beside the file, reached by a relative path only.
  mkdirSync(join(dir, 'servers'));
  writeFileSync(join(dir, 'servers', 'fixture-server.mjs'), `await import(${JSON.stringify(pathToFileURL(fixtureServerPath()).href)});\n`);
  writeFileSync(join(dir, 'servers', 'run.sh'), `#!/bin/sh\nexec "${process.execPath}" "$(dirname "$0")/fixture-server.mjs"\n`);
  chmodSync(join(dir, 'servers', 'run.sh'), 0o755);
  writeFileSync(join(dir, 'servers', 'plain.txt'), 'not a program\n');
  mkdirSync(join(dir, 'work'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const write = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

async function problemsOf(path: string, env: Record<string, string | undefined> = process.env): Promise<string[]> {
  try {
    await checkAgentsFile(path, { env, checkCommands: true });
    return [];
  } catch (error) {
    if (!isConfigError(error)) throw error;
    return error.problems.map((p) => `${p.path}: ${p.problem.replace(/^.*?:\d+:\d+: /, '')}`);
  }
}

describe('paths of a server entry are read from the folder of its file', () => {
  it('runs a server in the folder of its file, so relative args name files beside it', async () => {
    const file = write(
      'relative.yaml',
      `servers:\n  fx:\n    command: ${JSON.stringify(process.execPath)}\n    args: [./servers/fixture-server.mjs]\n`,
    );
    const config = await loadAgentsFile(file, { env: {} });
    const fx = config.servers.fx;
    expect(fx?.cwd).toBe(dirname(file));
    expect(process.cwd()).not.toBe(dirname(file));
    // Started from another working directory, the server is found: it runs where its file is.
    await using client = new McpClient({ ...fx!, backoff: { ...fx!.backoff }, args: [...fx!.args], env: {}, headers: {}, roots: [] });
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('echo');
  });

  it('resolves a relative command with a slash and a relative cwd against the folder, and leaves bare names and placeholders', async () => {
    const file = write(
      'commands.yaml',
      'servers:\n  a:\n    command: servers/run.sh\n    cwd: work\n  b:\n    command: node\n    cwd: "${SANDBOX_ROOT}"\n  c:\n    url: http://127.0.0.1:9/mcp\n',
    );
    const config = await loadAgentsFile(file, { env: {} });
    expect(config.servers.a).toMatchObject({ command: join(dir, 'servers', 'run.sh'), cwd: join(dir, 'work') });
    expect(config.servers.b).toMatchObject({ command: 'node', cwd: '${SANDBOX_ROOT}' });
    expect(config.servers.c?.cwd).toBeUndefined();
  });

  it('starts a path-like command named relative to the file, whatever the cwd setting', async () => {
    const file = write('script.yaml', 'servers:\n  fx:\n    command: ./servers/run.sh\n    cwd: work\n');
    const fx = (await loadAgentsFile(file, { env: {} })).servers.fx!;
    await using client = new McpClient({ ...fx, backoff: { ...fx.backoff }, args: [], env: {}, headers: {}, roots: [] });
    expect((await client.listTools()).length).toBeGreaterThan(0);
  });
});

describe('checkCommands (agents validate) checks each program before anything is spawned', () => {
  it('says which command is missing, not a file, or not executable, with file positions', async () => {
    const file = write(
      'bad-commands.yaml',
      'servers:\n  gone:\n    command: ./servers/nope.sh\n  folder:\n    command: ./servers\n  text:\n    command: ./servers/plain.txt\n  typo:\n    command: nodee-not-installed\n  ok:\n    command: node\n',
    );
    const problems = await problemsOf(file);
    expect(problems).toEqual([
      `servers.gone.command: ${join(dir, 'servers', 'nope.sh')} does not exist`,
      `servers.folder.command: ${join(dir, 'servers')} is not a file`,
      `servers.text.command: ${join(dir, 'servers', 'plain.txt')} is not executable`,
      'servers.typo.command: "nodee-not-installed" is not found on PATH',
    ]);
  });

  it("looks a bare name up on the server's own PATH when it sets one", async () => {
    const file = write(
      'own-path.yaml',
      `servers:\n  fx:\n    command: run.sh\n    env: { PATH: ${JSON.stringify(join(dir, 'servers'))} }\n`,
    );
    expect(await problemsOf(file, { PATH: '/nonexistent' })).toEqual([]);
  });

  it('is not done when loading for the runtime (the server may be installed later)', async () => {
    const file = write('later.yaml', 'servers:\n  x:\n    command: not-installed-yet\n');
    await expect(loadAgentsFile(file, { env: {} })).resolves.toBeDefined();
  });
});

describe('unset ${VAR} references', () => {
  it('are warnings with their position under unsetVariables: warn, and the value holding one is not judged', async () => {
    const file = write('unset.yaml', 'servers:\n  remote:\n    url: "${REMOTE_URL}"\n    headers: { Authorization: "Bearer ${TOKEN}" }\n');
    const { warnings, config } = await checkAgentsFile(file, { env: {}, unsetVariables: 'warn' });
    expect(warnings.map((w) => w.path)).toEqual(['servers.remote.url', 'servers.remote.headers.Authorization']);
    expect(warnings[0]?.problem).toMatch(/unset\.yaml:3:\d+: REMOTE_URL is not set in the environment/);
    expect(config.servers).toEqual({}); // a server whose url is unknown is not built
  });

  it('are errors by default, and other mistakes still count beside them', async () => {
    const file = write('unset-and-typo.yaml', 'servers:\n  a:\n    command: node\n    args: ["${NOPE}"]\n    restrat: permanent\n');
    await expect(loadAgentsFile(file, { env: {} })).rejects.toThrow(/NOPE is not set/);
    await expect(checkAgentsFile(file, { env: {}, unsetVariables: 'warn' })).rejects.toThrow(/restrat/);
  });
});

describe("unset ${VAR} references under unsetVariables: 'per-server' (as a runtime loads)", () => {
  it('leave the file usable and name, per server, each variable and where it is written', async () => {
    const text = 'servers:\n  a:\n    command: node\n  b:\n    url: "${REMOTE_URL}"\n    headers: { Authorization: "Bearer ${TOKEN}" }\n';
    const config = await loadAgentsFile(write('per-server.yaml', text), { env: {}, unsetVariables: 'per-server' });
    expect(Object.keys(config.servers)).toEqual(['a']);
    expect(config.unsetVariables).toEqual({
      b: [
        { variable: 'REMOTE_URL', key: 'servers.b.url', at: stringMatching(/per-server\.yaml:5:\d+$/) },
        { variable: 'TOKEN', key: 'servers.b.headers.Authorization', at: stringMatching(/per-server\.yaml:6:\d+$/) },
      ],
    });
  });

  it('still refuse an unset one outside a server entry, and other mistakes beside it', async () => {
    const file = write(
      'per-server-bad.yaml',
      'servers:\n  a:\n    command: node\n    args: ["${NOPE}"]\n    restrat: permanent\nskills:\n  s:\n    description: "${ALSO_NOPE}"\n',
    );
    await expect(loadAgentsFile(file, { env: {}, unsetVariables: 'per-server' })).rejects.toThrow(/restrat[\s\S]*ALSO_NOPE is not set/);
  });
});
