// Build: compile src/ with tsc, then copy the plain-JavaScript scripts that are spawned as processes
// (fixtures, the reaper) beside their compiled siblings (Node 20 cannot run TypeScript, so anything spawned as a process is .mjs).
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
rmSync(join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
for (const folder of ['testing', 'process', 'process/confinement', 'sandbox']) {
  for (const file of readdirSync(join(root, 'src', folder))) {
    if (file.endsWith('.mjs')) cpSync(join(root, 'src', folder, file), join(root, 'dist', folder, file));
  }
}
