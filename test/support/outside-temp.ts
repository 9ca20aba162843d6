/**
 * A folder for test files that must lie outside the temp dir and any node_modules (the bubblewrap
 * probe passes over a `bwrap` there): under the user's cache, whatever folder the checkout is in
 * (CI may clone it under /tmp).
 */
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export function outsideTempDir(): string {
  const dir = join(homedir(), '.cache', 'mcp-actors-tests');
  mkdirSync(dir, { recursive: true });
  return dir;
}
