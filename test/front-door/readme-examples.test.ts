/**
 * Every JavaScript block of the README runs as printed, as a user would paste it into a `.mjs` file
 * at the package root (`mcp-actors` resolves to this package by its own name), on the Node this run
 * uses — Node 20 by default, and 22 and 24 in `.ci/run`. A block marked `<!-- example: examples/<file> -->`
 * is that file as it is (docs-examples.test.ts checks the text), so it runs here as the file: every
 * `examples/*.mjs` (the package ships examples/) runs as `node examples/<file>`.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const allBlocks = [...readme.matchAll(/```(js|javascript|mjs)\n([\s\S]*?)```/g)].map((match, index) => ({
  index,
  line: readme.slice(0, match.index).split('\n').length,
  code: match[2] ?? '',
  marked: /<!-- example: examples\/[^ ]+\.mjs -->\n$/.test(readme.slice(0, match.index)),
}));
const blocks = allBlocks.filter((block) => !block.marked);
const folder = join(root, '.readme-run');

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('README JavaScript examples', () => {
  it('has some: example files (run below) or blocks that run as printed', () => {
    expect(allBlocks.length).toBeGreaterThan(0);
  });

  it.each(blocks)(
    'the block at README.md:$line runs and exits 0',
    async ({ index, code }) => {
      mkdirSync(folder, { recursive: true });
      const file = join(folder, `example-${index}.mjs`);
      writeFileSync(file, code);
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [file], { cwd: root, timeout: 60_000 });
      expect(stderr).not.toMatch(/Error|Warning/);
      expect(stdout.length).toBeGreaterThan(0);
    },
    90_000,
  );
});

const examples = readdirSync(join(root, 'examples')).filter((name) => name.endsWith('.mjs'));
/** What an example must print, beyond running: what it shows a reader. */
const printed: Readonly<Record<string, RegExp>> = {
  'embed-config.mjs':
    /files\/directory_tree \(read\)[\s\S]*it counts as writing because of [\s\S]*write_file: committed[\s\S]*after rollback: 0 changes/,
  'embed-file.mjs': /files\/move_file \(execute\)[\s\S]*files\/move_file: committed/,
  'mcp-client.mjs': /RUNNING[\s\S]*Echo: hi[\s\S]*STOPPED/,
  'domain-server.mjs':
    /in-process: committed \{"shifts":\[\{"date":"2026-01-05","who":"ana"\}\]\}\nover HTTP: \{"shifts":\[\{"date":"2026-01-05","who":"bo"\}\]\}/,
};

describe('examples/*.mjs', () => {
  it('has the createRuntime({ config }) example', () => {
    expect(examples).toContain('embed-config.mjs');
  });

  it.each(examples)(
    'examples/%s runs and exits 0',
    async (name) => {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [join('examples', name)], { cwd: root, timeout: 60_000 });
      expect(stderr).not.toMatch(/Error|Warning/);
      expect(stdout).toMatch(printed[name] ?? /./);
    },
    90_000,
  );
});
