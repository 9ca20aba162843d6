// `npm start`: builds when dist/ is missing or older than src/, then runs `agents demo`.
// Plain Node (no dependency) so that it can say what to do on a clone where `npm ci` has not run yet.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

if (!existsSync(join(root, 'node_modules', 'typescript')) && !existsSync(join(root, 'dist', 'cli', 'main.js'))) {
  process.stderr.write('mcp-actors: the dependencies are not installed yet. Run `npm ci` first, then `npm start`.\n');
  process.exit(1);
}
const built = join(root, 'dist', 'cli', 'main.js');
if (!existsSync(built) || (existsSync(join(root, 'src')) && statSync(built).mtimeMs < newest(join(root, 'src')))) {
  process.stdout.write('mcp-actors: building (tsc)…\n');
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const demo = spawnSync(process.execPath, [join(root, 'bin', 'agents.mjs'), 'demo', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(demo.status ?? 1);
