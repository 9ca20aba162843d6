/**
 * The code blocks of README.md and docs/*.md, and the example files their marked blocks copy: read by
 * the docs example runner (through test/support/doc-blocks.ts) and written by `npm run docs:sync`
 * (scripts/sync-doc-examples.mjs), so both read a block and its example the same way.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** README.md and every docs/*.md, as paths relative to the repository root. */
export const docFiles = [
  'README.md',
  ...readdirSync(join(repoRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

/** The fenced code blocks of a doc, each with its opening line, its end and its example marker. */
export function blocksOf(doc) {
  const lines = readFileSync(join(repoRoot, doc), 'utf8').split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i] ?? '');
    if (!open) continue;
    const end = lines.findIndex((text, j) => j > i && text === '```');
    if (end === -1) throw new Error(`${doc}:${String(i + 1)}: a code block that is never closed`);
    const marker = /^<!-- example: ([^\s#]+)(?:#(\S+))? -->$/.exec(lines[i - 1] ?? '');
    blocks.push({
      doc,
      line: i + 1,
      endLine: end + 1,
      lang: open[1] ?? '',
      code: lines.slice(i + 1, end).join('\n') + '\n',
      ...(marker?.[1] ? { example: { path: marker[1], ...(marker[2] ? { region: marker[2] } : {}) } } : {}),
    });
    i = end;
  }
  return blocks;
}

/** The text between `// #region <name>` and `// #endregion <name>` of a file, or the whole file. */
export function exampleText(path, region) {
  const text = readFileSync(join(repoRoot, path), 'utf8');
  if (!region) return text;
  const open = `// #region ${region}\n`;
  const start = text.indexOf(open);
  const end = text.indexOf(`// #endregion ${region}`, start);
  if (start === -1 || end === -1) throw new Error(`${path} has no "// #region ${region}" ... "// #endregion ${region}"`);
  return text.slice(start + open.length, end);
}
