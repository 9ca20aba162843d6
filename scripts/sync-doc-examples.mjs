#!/usr/bin/env node
/**
 * `npm run docs:sync`: every code block of README.md and docs/*.md marked
 * `<!-- example: <path>[#region] -->` gets the text of the file it names (or of its
 * `// #region <name>` … `// #endregion <name>`), as test/front-door/docs-examples.test.ts asks.
 * Run it after editing (or formatting) an example file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { blocksOf, docFiles, exampleText, repoRoot } from './doc-blocks.mjs';

let changed = 0;
for (const doc of docFiles) {
  const marked = blocksOf(doc).filter((block) => block.example);
  if (marked.length === 0) continue;
  const lines = readFileSync(join(repoRoot, doc), 'utf8').split('\n');
  // From the last block up, so that each replacement leaves the earlier blocks' lines where they were.
  for (const block of marked.reverse()) {
    const body = exampleText(block.example.path, block.example.region).replace(/\n$/, '').split('\n');
    if (block.code !== `${body.join('\n')}\n`) changed += 1;
    lines.splice(block.line, block.endLine - block.line - 1, ...body);
  }
  writeFileSync(join(repoRoot, doc), lines.join('\n'));
}
console.log(`docs:sync: ${changed} block(s) brought in line with their example files`);
