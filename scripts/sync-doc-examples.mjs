#!/usr/bin/env node
/**
 * `npm run docs:sync`: every code block of README.md and docs/*.md marked
 * `<!-- example: <path>[#region] -->` gets the text of the file it names (or of its
 * `// #region <name>` … `// #endregion <name>`), as test/front-door/docs-examples.test.ts asks.
 * Run it after editing (or formatting) an example file.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

function exampleText(path, region) {
  const text = readFileSync(join(root, path), 'utf8');
  if (!region) return text;
  const open = `// #region ${region}\n`;
  const start = text.indexOf(open);
  const end = text.indexOf(`// #endregion ${region}`, start);
  if (start === -1 || end === -1) throw new Error(`${path} has no "// #region ${region}" ... "// #endregion ${region}"`);
  return text.slice(start + open.length, end);
}

let changed = 0;
for (const doc of docs) {
  const lines = readFileSync(join(root, doc), 'utf8').split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    out.push(lines[i]);
    const marker = /^<!-- example: ([^\s#]+)(?:#(\S+))? -->$/.exec(lines[i] ?? '');
    if (!marker || !/^```\S*\s*$/.test(lines[i + 1] ?? '')) continue;
    const end = lines.findIndex((text, j) => j > i + 1 && text === '```');
    if (end === -1) throw new Error(`${doc}:${i + 2}: a code block that is never closed`);
    const body = exampleText(marker[1], marker[2]).replace(/\n$/, '').split('\n');
    const old = lines.slice(i + 2, end);
    if (old.join('\n') !== body.join('\n')) changed += 1;
    out.push(lines[i + 1], ...body, '```');
    i = end;
  }
  writeFileSync(join(root, doc), out.join('\n'));
}
console.log(`docs:sync: ${changed} block(s) brought in line with their example files`);
