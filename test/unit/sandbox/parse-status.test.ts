/** The host's uncommitted work comes from one `git status --porcelain=v2 -z` scan: its records, parsed. */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStatus } from '../../../src/sandbox/sandbox-layout.js';
import { createGitProject, git } from '../../support/git-project.js';

describe('parseStatus', () => {
  it('reads ordinary, unmerged, untracked and ignored records, names with spaces kept whole', () => {
    const output = [
      '1 .M N... 100644 100644 100644 aaaa bbbb src/a file.ts',
      'u UU N... 100644 100644 100644 100644 cccc dddd eeee both changed.md',
      '? new dir/note.txt',
      '! dist/',
      '',
    ].join('\0');
    expect(parseStatus(output)).toEqual({
      tracked: ['src/a file.ts', 'both changed.md'],
      untracked: ['new dir/note.txt'],
      ignored: ['dist/'],
    });
  });

  it('agrees with git on a real repository: staged, unstaged, deleted, untracked and ignored', () => {
    const dir = createGitProject({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c d.txt': 'c\n', '.gitignore': 'dist/\n' });
    try {
      writeFileSync(join(dir, 'a.txt'), 'a2\n');
      writeFileSync(join(dir, 'b.txt'), 'b2\n');
      git(dir, 'add', 'b.txt');
      rmSync(join(dir, 'c d.txt'));
      mkdirSync(join(dir, 'dist'));
      writeFileSync(join(dir, 'dist', 'out.js'), '1\n');
      writeFileSync(join(dir, 'new file.txt'), 'n\n');
      const output = execFileSync(
        'git',
        ['status', '--porcelain=v2', '-z', '--no-renames', '--untracked-files=all', '--ignored=matching'],
        { cwd: dir, encoding: 'utf8' },
      );
      const parsed = parseStatus(output);
      expect(parsed.tracked.sort()).toEqual(['a.txt', 'b.txt', 'c d.txt']);
      expect(parsed.untracked).toEqual(['new file.txt']);
      expect(parsed.ignored).toEqual(['dist/']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
