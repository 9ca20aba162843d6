/**
 * What an attacker plants in a sandbox: a git directory (in place of a worktree's `.git` link) whose
 * hooks and fsmonitor run a command of its own — here, touching `marker`. Any git that discovers
 * this repository and writes an index would run it on the host.
 */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What an attacker plants: a git directory whose hooks (and fsmonitor) run a command of its own. */
export function plantGitDir(path, marker) {
  rmSync(path, { recursive: true, force: true });
  for (const dir of ['objects', 'refs/heads', 'hooks']) mkdirSync(join(path, dir), { recursive: true });
  writeFileSync(join(path, 'HEAD'), 'ref: refs/heads/main\n');
  const script = `#!/bin/sh\ntouch '${marker}'\n`;
  writeFileSync(
    join(path, 'config'),
    `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = ${join(path, 'hooks', 'fsmonitor')}\n`,
  );
  for (const hook of ['post-index-change', 'fsmonitor', 'post-checkout', 'reference-transaction']) {
    writeFileSync(join(path, 'hooks', hook), script);
    chmodSync(join(path, 'hooks', hook), 0o755);
  }
}
