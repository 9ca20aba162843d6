/**
 * The code blocks and relative links of README.md and docs/*.md, with the line each starts on: what
 * the docs example runner (test/front-door/docs-examples.test.ts, test/system/docs-examples.system.ts) checks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** README.md and every docs/*.md, as paths relative to the repository root. */
export const docFiles: readonly string[] = [
  'README.md',
  ...readdirSync(join(repoRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

export interface DocBlock {
  /** The doc, relative to the repository root. */
  readonly doc: string;
  /** The line of the opening fence, 1-based. */
  readonly line: number;
  readonly lang: string;
  readonly code: string;
  /** `<!-- example: <path>[#region] -->` on the line right above the fence. */
  readonly example?: { readonly path: string; readonly region?: string };
}

export const SCRIPT_LANGS: ReadonlySet<string> = new Set(['js', 'javascript', 'mjs', 'ts', 'typescript']);

export function blocksOf(doc: string): DocBlock[] {
  const lines = readFileSync(join(repoRoot, doc), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i] ?? '');
    if (!open) continue;
    const end = lines.findIndex((text, j) => j > i && text === '```');
    if (end === -1) throw new Error(`${doc}:${String(i + 1)}: a code block that is never closed`);
    const marker = /^<!-- example: ([^\s#]+)(?:#(\S+))? -->$/.exec(lines[i - 1] ?? '');
    blocks.push({
      doc,
      line: i + 1,
      lang: open[1] ?? '',
      code: lines.slice(i + 1, end).join('\n') + '\n',
      ...(marker?.[1] ? { example: { path: marker[1], ...(marker[2] ? { region: marker[2] } : {}) } } : {}),
    });
    i = end;
  }
  return blocks;
}

/** The text between `// #region <name>` and `// #endregion <name>` of a file, or the whole file. */
export function exampleText(path: string, region?: string): string {
  const text = readFileSync(join(repoRoot, path), 'utf8');
  if (!region) return text;
  const open = `// #region ${region}\n`;
  const start = text.indexOf(open);
  const end = text.indexOf(`// #endregion ${region}`, start);
  if (start === -1 || end === -1) throw new Error(`${path} has no "// #region ${region}" ... "// #endregion ${region}"`);
  return text.slice(start + open.length, end);
}

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
