// This process's descendants and their resident memory, read from /proc (Linux; elsewhere empty):
// what a sandbox's server, bwrap and rollback worker cost beside the host's own memory.
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** Every live (not zombie) descendant of `root`: pid, command name and VmRSS in bytes. */
export function descendants(root = process.pid) {
  const parentOf = new Map();
  const info = new Map();
  let entries;
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so split at the last ')'.
      const close = stat.lastIndexOf(')');
      const [state, ppid] = stat.slice(close + 2).split(' ');
      if (state === 'Z') continue;
      parentOf.set(Number(entry), Number(ppid));
      info.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
    } catch {
      // ended meanwhile
    }
  }
  const found = [];
  const isDescendant = (pid) => {
    for (let p = parentOf.get(pid); p !== undefined && p > 1; p = parentOf.get(p)) if (p === root) return true;
    return false;
  };
  for (const pid of parentOf.keys()) {
    if (!isDescendant(pid)) continue;
    found.push({ pid, name: labelOf(pid, info.get(pid)), rss: vmRss(pid) });
  }
  return found.filter((child) => child.rss !== undefined);
}

/**
 * What a process is, for a reader: a Node process by its script (a package's entry by the
 * package's name: `server-filesystem`, else the file's name: `reaper.mjs`), anything else by its
 * command name (`bwrap`, `git`).
 */
function labelOf(pid, comm) {
  let argv;
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return comm;
  }
  if (!/(^|\/)node$/.test(argv[0] ?? '')) return comm;
  const script = argv.slice(1).find((arg) => /\.(m|c)?js$/.test(arg));
  if (!script) return comm;
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(script);
  return inPackage ? inPackage[1].replace(/^@[^/]+\//, '') : basename(script);
}

/** VmRSS of `pid` in bytes, or undefined when it ended (or has none: a kernel thread). */
export function vmRss(pid) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return line ? Number(line.split(/\s+/)[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
