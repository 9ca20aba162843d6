/**
 * The docs example runner. Every code block of README.md and docs/*.md is checked, each failure
 * naming the doc and the line of the block:
 * - a js/ts block marked `<!-- example: <path>[#region] -->` on the line above it is that file (or the
 *   text between its `// #region <name>` and `// #endregion <name>` lines) as it is, and the file is one
 *   a test runs: `examples/*.mjs` (readme-examples.test.ts runs each) or a `test/**\/*.test.ts`;
 * - any other js/ts block is a small API snippet: it must parse, import only this package's entry
 *   points, node: modules and the package's own dependencies, and it is typechecked against the
 *   package's types in test/system/docs-examples.system.ts (one tsc run: too much CPU for npm test);
 * - a yaml block is an agents.yaml that the config loader (`checkAgentsFile`) accepts as printed,
 *   placed in examples/ where the Agent Skill folder it names lives, unset variables as warnings;
 * - sh, mermaid (test/unit/statecharts/diagrams.test.ts) and plain blocks are not run.
 * And every relative link points to a file that exists, and to a heading's anchor when it names one.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';
import { checkAgentsFile } from '../../src/config/agents-file.js';
import { anchorsOf, blocksOf, docFiles, exampleText, linksOf, repoRoot, SCRIPT_LANGS } from '../support/doc-blocks.js';

const blocks = docFiles.flatMap(blocksOf);
const where = (block: { doc: string; line: number }): string => `${block.doc}:${String(block.line)}`;
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const installed = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)]);

/** Why an import specifier is not one a reader of the docs can use, or undefined. */
function badImport(specifier: string): string | undefined {
  if (specifier.startsWith('node:')) return undefined;
  if (specifier === pkg.name || specifier.startsWith(`${pkg.name}/`)) {
    const subpath = `.${specifier.slice(pkg.name.length)}`;
    return subpath in pkg.exports ? undefined : `"${specifier}" is not an entry point of the package (package.json exports)`;
  }
  const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] ?? '');
  return installed.has(name) ? undefined : `"${specifier}" is neither this package nor one of its dependencies`;
}

describe('code blocks of README.md and docs/*.md', () => {
  it('has marked examples, snippets and agents.yaml blocks to check', () => {
    expect(blocks.filter((block) => block.example).length).toBeGreaterThanOrEqual(4);
    expect(blocks.filter((block) => block.lang === 'yaml').length).toBeGreaterThanOrEqual(2);
  });

  it('uses only the languages the runner knows', () => {
    const known = new Set([...SCRIPT_LANGS, 'yaml', 'sh', 'mermaid', '']);
    const unknown = blocks.filter((block) => !known.has(block.lang)).map((block) => `${where(block)}: a \`\`\`${block.lang} block`);
    expect(unknown, 'the runner has no rule for these').toEqual([]);
  });

  it('marks only js/ts blocks as examples', () => {
    const wrong = blocks.filter((block) => block.example && !SCRIPT_LANGS.has(block.lang)).map(where);
    expect(wrong).toEqual([]);
  });

  const marked = blocks.filter((block) => block.example && SCRIPT_LANGS.has(block.lang));
  it.each(marked.map((block) => [where(block), block] as const))('%s is the example file it names, which a test runs', (_, block) => {
    const path = block.example?.path ?? '';
    const run = /^examples\/[^/]+\.mjs$/.test(path) || /^test\/.+\.test\.ts$/.test(path);
    expect(run, `${where(block)}: ${path} is not run by a test (examples/*.mjs or test/**/*.test.ts)`).toBe(true);
    expect(existsSync(join(repoRoot, path)), `${where(block)}: ${path} does not exist`).toBe(true);
    expect(
      block.code,
      `${where(block)}: the block differs from ${path}${block.example?.region ? `#${block.example.region}` : ''} (npm run docs:sync copies it in)`,
    ).toBe(exampleText(path, block.example?.region));
  });

  const snippets = blocks.filter((block) => !block.example && SCRIPT_LANGS.has(block.lang));
  it.each(snippets.map((block) => [where(block), block] as const))('%s parses and imports only what a reader can install', (_, block) => {
    const output = ts.transpileModule(block.code, {
      fileName: 'snippet.ts',
      reportDiagnostics: true,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    const syntax = (output.diagnostics ?? []).map((d) => {
      const at = d.start === undefined ? 0 : block.code.slice(0, d.start).split('\n').length;
      return `${block.doc}:${String(block.line + at)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    expect(syntax).toEqual([]);
    const imports = [...block.code.matchAll(/^import [^;]*? from '([^']+)';/gm)].map((match) => match[1] ?? '');
    const bad = imports.flatMap((specifier) => badImport(specifier) ?? []).map((why) => `${where(block)}: ${why}`);
    expect(bad).toEqual([]);
  });
});

describe('agents.yaml blocks of README.md and docs/*.md', () => {
  const written: string[] = [];
  afterEach(() => {
    for (const file of written.splice(0)) rmSync(file, { force: true });
  });
  const yamlBlocks = blocks.filter((block) => block.lang === 'yaml');
  it.each(yamlBlocks.map((block) => [where(block), block] as const))('%s validates as printed', async (_, block) => {
    const file = join(repoRoot, 'examples', `.docs-block-${String(block.line)}-${String(process.pid)}.yaml`);
    written.push(file);
    writeFileSync(file, block.code);
    const problems: string[] = [];
    try {
      const { warnings } = await checkAgentsFile(file, { env: { PATH: process.env.PATH }, unsetVariables: 'warn', checkCommands: true });
      // Only the variables the reader is expected to set are left to warn about.
      for (const warning of warnings) if (!/is not set in the environment/.test(warning.problem)) problems.push(warning.problem);
    } catch (error) {
      problems.push(String(error));
    }
    expect(problems, `${where(block)}: not a valid agents.yaml`).toEqual([]);
  });
});

describe('relative links of README.md and docs/*.md', () => {
  it.each(docFiles)('%s links only to files and headings that exist', (doc) => {
    const broken: string[] = [];
    for (const { line, target } of linksOf(doc)) {
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? join(repoRoot, doc) : normalize(join(repoRoot, dirname(doc), path));
      if (!existsSync(file)) broken.push(`${doc}:${String(line)}: ${target} (no such file)`);
      else if (anchor && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor))
        broken.push(`${doc}:${String(line)}: ${target} (no such heading)`);
    }
    expect(broken).toEqual([]);
  });
});
