/** A git project of `files` small text files in nested folders, for scale tests (fixed content, no randomness). */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from './git-project.js';

export function createScaleProject(files: number): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-actors-scale-')));
  git(dir, 'init', '-q', '-b', 'main');
  for (let i = 0; i < files; i += 1) {
    const folder = join(dir, `pkg${i % 37}`, `mod${i % 11}`, `part${i % 5}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `file${i}.ts`), `export const value${i} = ${i};\n`.repeat(1 + (i % 7)));
  }
  git(dir, 'add', '-A');
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'files'], { cwd: dir });
  return dir;
}
