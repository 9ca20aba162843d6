// The reaper: a tiny process that outlives its host to kill what the host leaves behind.
//
// The host (src/process/process-groups.ts) writes "+<pgid>" when it spawns a server group and
// "-<pgid>" when the group is gone; "!<dir>" / "~<dir>" when a background removal starts / ends. When this process's stdin ends, the host has died — even by
// SIGKILL, when no exit hook can run — so every group still listed is killed, then the reaper
// exits. Plain JavaScript: it is spawned as a process.
import { rmSync } from 'node:fs';
import { basename } from 'node:path';

/** As `TRASH_PREFIX` in process-groups.ts. */
const TRASH_PREFIX = 'mcp-actors-trash-';
const groups = new Set();
/** Directories the host is removing in the background ("!<dir>", "~<dir>" when done): finished here if the host dies. */
const removals = new Set();
let pending = '';

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let newline;
  while ((newline = pending.indexOf('\n')) >= 0) {
    const line = pending.slice(0, newline);
    pending = pending.slice(newline + 1);
    if (line[0] === '!' || line[0] === '~') {
      const dir = line.slice(1);
      // Only what the host renamed aside for removal (`removeInBackground`), never anything else.
      if (!dir.startsWith('/') || !basename(dir).startsWith(TRASH_PREFIX)) continue;
      if (line[0] === '!') removals.add(dir);
      else removals.delete(dir);
      continue;
    }
    const pgid = Number(line.slice(1));
    if (!Number.isInteger(pgid) || pgid <= 1) continue;
    if (line[0] === '+') groups.add(pgid);
    else if (line[0] === '-') groups.delete(pgid);
  }
});

function reap() {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // the group is already gone
    }
  }
  for (const dir of removals) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // best effort: nothing else is left to try
    }
  }
  process.exit(0);
}

process.stdin.on('end', reap);
process.stdin.on('error', reap);
// The host's own exit hook may signal its process group; the reaper has its own group, but be sure.
process.on('SIGTERM', () => undefined);
process.on('SIGINT', () => undefined);
process.on('SIGHUP', () => undefined);
