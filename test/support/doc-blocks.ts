/**
 * The code blocks and relative links of README.md and docs/*.md, with the line each starts on: what
 * the docs example runner (test/front-door/docs-examples.test.ts, test/system/docs-examples.system.ts) checks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../scripts/doc-blocks.mjs';

// One reader of blocks and examples, shared with `npm run docs:sync` (a plain script on Node 20).
export { blocksOf, docFiles, exampleText, repoRoot, type DocBlock } from '../../scripts/doc-blocks.mjs';

export const SCRIPT_LANGS: ReadonlySet<string> = new Set(['js', 'javascript', 'mjs', 'ts', 'typescript']);

/** Relative links `[text](target)` outside code, with their lines. */
export function linksOf(doc: string): { line: number; target: string }[] {
  const lines = readFileSync(join(repoRoot, doc), 'utf8').split('\n');
  const links: { line: number; target: string }[] = [];
  let inCode = false;
  lines.forEach((text, index) => {
    if (text.startsWith('```')) inCode = !inCode;
    if (inCode) return;
    for (const match of text.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? '';
      if (!/^[a-z]+:/i.test(target)) links.push({ line: index + 1, target });
    }
  });
  return links;
}

/** GitHub's anchors of a markdown file's headings. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inCode = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const heading = inCode ? null : /^#{1,6} (.+)$/.exec(line);
    if (!heading?.[1]) continue;
    const slug = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${String(count)}`);
  }
  return anchors;
}
