/**
 * agents.yaml as the `agents` CLI edits it (`node bin/agents.mjs`, real files): a linked file is
 * edited where the link leads and stays a link; a link that leads nowhere is refused; and two
 * `agents tool add` at once both keep their edit (the many-round race is
 * test/system/files-cli-edits.system.ts).
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentsBin, runAgents } from '../support/agents-cli.js';

const base = mkdtempSync(join(tmpdir(), 'mcp-actors-files-cli-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const START = 'servers:\n  first:\n    command: node\n';
let seq = 0;
const folder = (): string => {
  seq += 1;
  const dir = join(base, `case-${seq}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

describe('a linked agents.yaml', () => {
  it('gets the edit in the file the link leads to, and stays a link', async () => {
    const dir = folder();
    mkdirSync(join(dir, 'dotfiles'));
    mkdirSync(join(dir, 'project'));
    const real = join(dir, 'dotfiles', 'agents.yaml');
    writeFileSync(real, START);
    symlinkSync('../dotfiles/agents.yaml', join(dir, 'project', 'agents.yaml'));

    const added = await runAgents(['tool', 'add', 'second', '--command', 'node'], { cwd: join(dir, 'project'), timeoutMs: 20_000 });
    expect(added).toEqual({ code: 0, stdout: 'added server "second" to agents.yaml\n', stderr: '' });
    expect(readFileSync(real, 'utf8')).toBe(`${START}  second:\n    command: node\n`);
    expect(lstatSync(join(dir, 'project', 'agents.yaml')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'project', 'agents.yaml'))).toBe('../dotfiles/agents.yaml');
    expect(readdirSync(join(dir, 'project'))).toEqual(['agents.yaml']);
    expect(readdirSync(join(dir, 'dotfiles'))).toEqual(['agents.yaml']);

    const removed = await runAgents(['tool', 'remove', 'first'], { cwd: join(dir, 'project'), timeoutMs: 20_000 });
    expect(removed.code).toBe(0);
    expect(readFileSync(real, 'utf8')).toBe('servers:\n  second:\n    command: node\n');
    expect(lstatSync(join(dir, 'project', 'agents.yaml')).isSymbolicLink()).toBe(true);
  });

  it('is refused when it leads nowhere, and nothing is created', async () => {
    const dir = folder();
    symlinkSync(join(dir, 'missing', 'agents.yaml'), join(dir, 'agents.yaml'));
    const result = await runAgents(['tool', 'add', 'second', '--command', 'node'], { cwd: dir, timeoutMs: 20_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^error \[NOT_FOUND\]: \S+agents\.yaml is a link to \S+missing\/agents\.yaml, which does not exist; create that file, or remove the link\n$/,
    );
    expect(lstatSync(join(dir, 'agents.yaml')).isSymbolicLink()).toBe(true);
    expect(existsSync(join(dir, 'missing'))).toBe(false);
    expect(readdirSync(dir)).toEqual(['agents.yaml']);
  });
});

describe('two agents tool add at once', () => {
  it('both keep their edit when the second starts while the first is between writing and renaming', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'agents.yaml'), START);
    // The first pauses after writing its temporary file, before the rename (the moment a second edit used to slip in).
    const first = spawn(process.execPath, [agentsBin, 'tool', 'add', 'one', '--command', 'node'], {
      cwd: dir,
      env: { ...process.env, MCP_ACTORS_TEST_PAUSE_BEFORE_RENAME_MS: '1500' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let firstErr = '';
    const firstDone = new Promise<number | null>((resolve) => first.on('exit', resolve));
    await new Promise<void>((resolve) => {
      first.stderr.on('data', (chunk: Buffer) => {
        firstErr += chunk.toString();
        if (firstErr.includes('paused before rename')) resolve();
      });
    });
    const second = await runAgents(['tool', 'add', 'two', '--command', 'node'], { cwd: dir, timeoutMs: 30_000 });
    expect(await firstDone).toBe(0);
    expect(second).toEqual({ code: 0, stdout: 'added server "two" to agents.yaml\n', stderr: '' });
    expect(readFileSync(join(dir, 'agents.yaml'), 'utf8')).toBe(`${START}  one:\n    command: node\n  two:\n    command: node\n`);
    expect(readdirSync(dir)).toEqual(['agents.yaml']);
  }, 40_000);
});
