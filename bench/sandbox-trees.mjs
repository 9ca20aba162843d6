// The trees bench/sandbox-scale.mjs measures on: generated git repositories of a given number of
// files (fixed seed, so every run and every machine gets the same bytes), cached so a 100k tree is
// made once, and the picks of files a run writes, reads and dirties (also fixed).
//
// A generated tree: text files of 200 B to 20 KB (log-normal, median about 1.5 KB, so a long tail
// up to the cap), about 0.3% binary files, in directories 0-7 deep (files at depths 1-8), a
// .gitignore, all committed in one commit.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const TREE_SEED = 20_261_203;
/** Bump when the generator changes: an old cache is then made again, never reused. */
const GENERATOR_VERSION = 1;

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const WORDS = [
  'const',
  'value',
  'return',
  'import',
  'export',
  'function',
  'node',
  'path',
  'scope',
  'state',
  'parse',
  'token',
  'visit',
  'plugin',
  'options',
  'result',
  'config',
  'module',
  'default',
  'string',
  'number',
  'array',
  'object',
  'error',
  'throw',
  'async',
  'await',
  'yield',
  'class',
  'extends',
  'super',
  'this',
  'type',
  'interface',
  'generic',
  'assert',
];
const TEXT_EXTENSIONS = [
  ['ts', 30],
  ['js', 25],
  ['json', 8],
  ['md', 8],
  ['txt', 4],
  ['css', 5],
  ['html', 4],
  ['yml', 4],
  ['snap', 6],
  ['mjs', 6],
];
const BINARY_EXTENSIONS = ['png', 'woff2', 'bin'];
export const TEXT_FILE = /\.(ts|js|mjs|cjs|json|md|txt|css|html|yml|snap)$/;

function weighted(rand, table) {
  const total = table.reduce((sum, [, w]) => sum + w, 0);
  let pick = rand() * total;
  for (const [value, w] of table) if ((pick -= w) < 0) return value;
  return table[0][0];
}

/** Log-normal around 1.5 KB, cut to 200 B-20 KB. */
function fileSize(rand) {
  const z = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  return Math.max(200, Math.min(20_000, Math.round(Math.exp(Math.log(1500) + 1.1 * z))));
}

function generate(root, count) {
  const rand = random(TREE_SEED + count);
  const lines = Array.from({ length: 4000 }, () => {
    const indent = '  '.repeat(Math.floor(rand() * 4));
    const words = Array.from({ length: 3 + Math.floor(rand() * 9) }, () => WORDS[Math.floor(rand() * WORDS.length)]);
    return `${indent}${words.join(' ')};\n`;
  });
  // Directories first (depth 0 = the root, at most 7), each under a random earlier one, then files
  // spread over them: file depths 1-8, shallow ones commoner, as in real repositories.
  const dirs = [{ path: '', depth: 0 }];
  const dirCount = Math.max(1, Math.round(count / 12));
  while (dirs.length < dirCount) {
    const parent = dirs[Math.floor(rand() * dirs.length)];
    if (parent.depth >= 7) continue;
    const name = `${WORDS[Math.floor(rand() * WORDS.length)]}-${dirs.length}`;
    dirs.push({ path: parent.path === '' ? name : `${parent.path}/${name}`, depth: parent.depth + 1 });
  }
  for (const dir of dirs) if (dir.path) mkdirSync(join(root, dir.path), { recursive: true });
  writeFileSync(join(root, '.gitignore'), 'node_modules/\ndist/\n*.log\n');
  for (let i = 1; i < count; i += 1) {
    const dir = dirs[Math.floor(rand() * dirs.length)].path;
    const size = fileSize(rand);
    const binary = rand() < 0.003;
    const name = `${WORDS[Math.floor(rand() * WORDS.length)]}${i}.${binary ? BINARY_EXTENSIONS[i % 3] : weighted(rand, TEXT_EXTENSIONS)}`;
    let content;
    if (binary) {
      content = Buffer.alloc(size);
      for (let b = 0; b < size; b += 1) content[b] = Math.floor(rand() * 256);
    } else {
      const parts = [`// file ${i} of ${count}\n`];
      let length = parts[0].length;
      while (length < size) {
        const line = lines[Math.floor(rand() * lines.length)];
        parts.push(line);
        length += line.length;
      }
      content = parts.join('').slice(0, size - 1) + '\n';
    }
    writeFileSync(join(root, dir, name), content);
  }
}

const git = (cwd, args) => execFileSync('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 }).toString();

/**
 * The generated repository of `count` files under `cacheDir`, made (and committed) on first use.
 * Returns its path.
 */
export function generatedRepository(cacheDir, count, log = () => {}) {
  const root = join(cacheDir, `tree-${count}-seed${TREE_SEED}-v${GENERATOR_VERSION}`);
  const done = `${root}.complete`;
  if (existsSync(done) && existsSync(join(root, '.git'))) return root;
  log(`generating a git repository of ${count.toLocaleString('en')} files in ${root} (once; cached)`);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const t0 = performance.now();
  generate(root, count);
  git(root, ['init', '-q']);
  git(root, ['add', '-A']);
  git(root, [
    '-c',
    'user.name=bench',
    '-c',
    'user.email=bench@localhost',
    '-c',
    'commit.gpgsign=false',
    'commit',
    '-q',
    '-m',
    `generated tree of ${count} files`,
  ]);
  writeFileSync(done, `${new Date().toISOString()}\n`);
  log(`  made in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return root;
}

/**
 * Tracked text files of 200 B-20 KB (regular files, not links), picked with a fixed seed: `count`
 * distinct paths for each purpose asked, none shared between purposes.
 */
export function pickFiles(repo, wants) {
  const tracked = git(repo, ['ls-files', '-z'])
    .split('\0')
    .filter((path) => TEXT_FILE.test(path))
    .sort();
  const rand = random(TREE_SEED);
  const taken = new Set();
  const picks = {};
  const needed = Object.values(wants).reduce((a, b) => a + b, 0);
  let tries = 0;
  for (const [purpose, count] of Object.entries(wants)) {
    picks[purpose] = [];
    while (picks[purpose].length < count) {
      if ((tries += 1) > needed * 1000) throw new Error(`${repo}: not enough text files of 200 B-20 KB to pick ${needed}`);
      const path = tracked[Math.floor(rand() * tracked.length)];
      if (path === undefined || taken.has(path)) continue;
      const stats = lstatSync(join(repo, path));
      if (!stats.isFile() || stats.size < 200 || stats.size > 20_000) continue;
      taken.add(path);
      picks[purpose].push(path);
    }
  }
  return picks;
}
