// `npm run test:fresh-clone`: what a newcomer does. Clone this repository (its committed HEAD) into
// an empty folder, run the README's first command, `npm ci && npm start` (exit 0, under 60 s for the
// start, no process left behind), then the README's second, `npm test`, with FRESH_CLONE=1 —
// FRESH_CLONE_RUNS times in a row (default 1), each with its wall time and CPU time reported.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'mcp-actors-clone-'));
const clone = join(work, 'mcp-actors');
const fail = (message) => {
  console.error(`fresh clone: ${message}`);
  process.exitCode = 1;
};

function processesUnder(folder) {
  const out = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).stdout;
  return out.split('\n').filter((line) => line.includes(folder) && !line.includes('ps -eo'));
}

try {
  execFileSync('git', ['clone', '--quiet', root, clone], { stdio: 'inherit' });
  const sh = (command, env = {}) => spawnSync('sh', ['-c', command], { cwd: clone, stdio: 'inherit', env: { ...process.env, ...env } });
  const install = sh('npm ci --no-audit --no-fund');
  if (install.status !== 0) throw new Error(`npm ci exited ${install.status}`);
  const started = Date.now();
  const start = sh('npm start');
  const seconds = (Date.now() - started) / 1000;
  if (start.status !== 0) fail(`npm start exited ${start.status}`);
  if (seconds > 60) fail(`npm start took ${seconds.toFixed(1)} s (more than 60 s)`);
  const left = processesUnder(clone);
  if (left.length > 0) fail(`npm start left processes behind:\n${left.join('\n')}`);
  console.log(`fresh clone: npm start exited ${start.status} in ${seconds.toFixed(1)} s, ${left.length} process(es) left`);
  const runs = Number(process.env.FRESH_CLONE_RUNS ?? 1);
  for (let run = 1; run <= runs; run += 1) {
    const began = Date.now();
    // `times` (POSIX sh) prints the CPU time of the shell's children: npm test and all it waited for.
    const test = sh(
      'npm test; status=$?; echo "fresh clone: CPU of the shell, then of npm test and all it waited for (user sys):"; times; exit $status',
      {
        FRESH_CLONE: '1',
      },
    );
    const wall = (Date.now() - began) / 1000;
    console.log(
      `fresh clone: npm test run ${run} of ${runs} exited ${test.status} in ${Math.floor(wall / 60)} min ${Math.round(wall % 60)} s`,
    );
    if (test.status !== 0) fail(`npm test (run ${run} of ${runs}) exited ${test.status}`);
  }
  const name = JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')).name;
  if (process.exitCode !== 1) console.log(`fresh clone: ${name} installs, starts and passes its tests`);
} catch (error) {
  fail(error.message);
} finally {
  rmSync(work, { recursive: true, force: true });
}
