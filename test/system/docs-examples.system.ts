/**
 * The docs example runner's typecheck (see test/front-door/docs-examples.test.ts): every js/ts block of
 * README.md and docs/*.md that is not a marked example file is written to a .ts file and typechecked in
 * one tsc run against the package as a user imports it (`mcp-actors` resolves to this package by its
 * own name: the built dist/, which `npm run test:system` builds first). A type error fails with the doc
 * and line it is on.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { blocksOf, docFiles, repoRoot, SCRIPT_LANGS } from '../support/doc-blocks.js';

const folder = join(repoRoot, `.docs-typecheck-${String(process.pid)}`);
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const snippets = docFiles.flatMap(blocksOf).filter((block) => !block.example && SCRIPT_LANGS.has(block.lang));

describe('js/ts snippets of README.md and docs/*.md', () => {
  it('typecheck against the built package', async () => {
    expect(snippets.length).toBeGreaterThan(0);
    mkdirSync(folder, { recursive: true });
    const names = new Map<string, (typeof snippets)[number]>();
    for (const block of snippets) {
      const name = `${block.doc.replace(/[/.]/g, '_')}_${String(block.line)}.ts`;
      names.set(name, block);
      writeFileSync(join(folder, name), block.code);
    }
    writeFileSync(
      join(folder, 'tsconfig.json'),
      JSON.stringify({ extends: '../tsconfig.json', compilerOptions: { noEmit: true, rootDir: '.' }, include: ['*.ts'] }),
    );
    const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');
    const output = await promisify(execFile)(process.execPath, [tsc, '-p', folder, '--pretty', 'false'], {
      cwd: repoRoot,
      timeout: 110_000,
    }).then(
      ({ stdout }) => stdout,
      (error: unknown) => (error as { stdout?: string }).stdout ?? String(error),
    );
    // `x.ts(3,7): error TS2304: ...` → `docs/api.md:<fence line + 3>: error TS2304: ...`
    const errors = output
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const match = /([^/\s]+\.ts)\((\d+),\d+\): (.*)$/.exec(line);
        const block = match?.[1] ? names.get(match[1]) : undefined;
        return block && match ? `${block.doc}:${String(block.line + Number(match[2]))}: ${match[3] ?? ''}` : line;
      });
    expect(errors).toEqual([]);
  });
});
