/**
 * The examples `agents --help` prints work as printed: those naming examples/agents.yaml run from
 * the package root against that shipped file (the live ones until Ctrl+C), and the editing ones run
 * in order on a fresh `agents init` file in a temporary folder.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMAND_SPECS } from '../../src/cli/command-specs.js';
import { waitUntil } from '../support/wait.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/agents.mjs');
const examples = Object.values(COMMAND_SPECS).flatMap((spec) => spec.examples as readonly string[]);

/** The words of an example as a shell would split them (single and double quotes). */
function words(example: string): string[] {
  return [...example.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '').slice(1);
}

async function agents(args: string[], cwd: string): Promise<{ code: number; output: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, ...args], {
      cwd,
      timeout: 60_000,
      env: { ...process.env, DOCS_TOKEN: 'x' },
    });
    return { code: 0, output: stdout + stderr, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr, stderr: failed.stderr };
  }
}

const live = (example: string): boolean => example.includes('--watch') || example.startsWith('agents up ');
const shipped = examples.filter((example) => example.includes('examples/agents.yaml'));
const editing = ['init', 'tool', 'skill', 'actor'].flatMap((command) =>
  examples
    .filter((example) => example.startsWith(`agents ${command} `) || example === `agents ${command}`)
    .filter((e) => !e.includes('--file')),
);
const work = mkdtempSync(join(tmpdir(), 'mcp-actors-help-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
// The examples name the file as an installed package holds it: a project with this package in its node_modules.
const installed = join(work, 'installed-project');
mkdirSync(join(installed, 'node_modules'), { recursive: true });
symlinkSync(root, join(installed, 'node_modules', 'mcp-actors'));
writeFileSync(join(installed, 'README.md'), '# a project that installed mcp-actors\n');

describe("the help's examples", () => {
  it('name the shipped examples/agents.yaml and edit a file of their own', () => {
    expect(shipped.length).toBeGreaterThanOrEqual(5);
    expect(editing.length).toBeGreaterThanOrEqual(8);
  });

  it.each(shipped.filter((example) => !live(example)))(
    '%s exits 0 from the package root',
    async (example) => {
      const result = await agents(words(example), installed);
      expect(result.stderr).not.toMatch(/^error/m);
      expect(result.code).toBe(0);
    },
    90_000,
  );

  it.each(shipped.filter(live))(
    '%s shows the servers RUNNING and ends with 130 on Ctrl+C',
    async (example) => {
      const child = spawn(process.execPath, [bin, ...words(example)], { cwd: installed, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      await waitUntil(() => / RUNNING pid \d+/.test(output), 'a RUNNING line', 60_000);
      child.kill('SIGINT');
      expect(await exited).toBe(130);
    },
    90_000,
  );

  it('the editing examples run in order on a fresh agents init file', async () => {
    // Dependents go before what they depend on when removing: actor, skill, then tool.
    const removals = editing.filter((e) => / remove /.test(e)).sort((a, b) => order(a) - order(b));
    const rest = editing.filter((e) => !/ remove /.test(e));
    for (const example of [...rest, ...removals]) {
      const result = await agents(words(example), work);
      expect(`${example}\n${result.stderr}`).not.toMatch(/^error/m);
      expect(result.code, `${example}\n${result.output}`).toBe(0);
    }
  }, 120_000);
});

function order(example: string): number {
  return example.includes('actor') ? 0 : example.includes('skill') ? 1 : 2;
}
