// `npm run conformance`: the MCP conformance suite (@modelcontextprotocol/conformance, installed in
// test/external/ with its own lock, run on test/external's Node 24) against mcp-actors. Every
// scenario of every list below must pass — no expected-failures list. A scenario passes when the
// suite exits 0 and none of its checks is a FAILURE. Needs `npm run build` and
// `cd test/external && npm ci` first.
//
//   node scripts/conformance.mjs [--only <scenario>] [--keep-results]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const external = join(root, 'test', 'external');
const node24 = join(external, 'node_modules', 'node24', 'bin', 'node');
const suite = join(external, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

/**
 * One list per side. `client` scenarios run the suite's servers against our client; another list
 * (the server side: `{ side: 'server', ... }`) is added beside it the same way.
 */
const RUNS = [
  {
    side: 'client',
    /** The program under test: the suite appends the server URL; it runs on the machine's Node. */
    command: `${JSON.stringify(process.execPath)} ${JSON.stringify(join(external, 'conformance-client.mjs'))}`,
    scenarios: [
      'initialize',
      'tools_call',
      'elicitation-sep1034-client-defaults',
      'sse-retry',
      'auth/metadata-default',
      'auth/metadata-var1',
      'auth/metadata-var2',
      'auth/metadata-var3',
      'auth/basic-cimd',
      'auth/scope-from-www-authenticate',
      'auth/scope-from-scopes-supported',
      'auth/scope-omitted-when-undefined',
      'auth/scope-step-up',
      'auth/scope-retry-limit',
      'auth/token-endpoint-auth-basic',
      'auth/token-endpoint-auth-post',
      'auth/token-endpoint-auth-none',
      'auth/pre-registration',
      'auth/2025-03-26-oauth-metadata-backcompat',
      'auth/2025-03-26-oauth-endpoint-fallback',
      'auth/resource-mismatch',
      'auth/offline-access-scope',
      'auth/offline-access-not-supported',
      'auth/client-credentials-jwt',
      'auth/client-credentials-basic',
      'auth/cross-app-access-complete-flow',
    ],
    /** The suite's arguments for one scenario of this side. */
    args: (run, scenario, outputDir) => ['client', '--command', run.command, '--scenario', scenario, '--output-dir', outputDir],
  },
];

const argv = process.argv.slice(2);
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
const keep = argv.includes('--keep-results');

for (const [path, what] of [
  [node24, 'Node 24 (cd test/external && npm ci)'],
  [suite, 'the conformance suite (cd test/external && npm ci)'],
  [join(root, 'dist', 'index.js'), 'the build (npm run build)'],
]) {
  if (!existsSync(path)) {
    console.error(`conformance: ${what} is missing: ${path}`);
    process.exit(2);
  }
}

/** Every checks.json under `dir` (the suite nests auth scenarios one folder deeper). */
function checkFiles(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...checkFiles(path));
    else if (name === 'checks.json') found.push(path);
  }
  return found;
}

function runSuite(args) {
  return new Promise((resolve) => {
    const child = spawn(node24, [suite, ...args], { cwd: external, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** The suite's own list of `side` scenarios, so a scenario it adds can never be skipped here unnoticed. */
async function listedScenarios(side) {
  const { output } = await runSuite(['list']);
  const heading = side === 'client' ? /^Client scenarios/ : /^Server scenarios/;
  const names = [];
  let inside = false;
  for (const line of output.split('\n')) {
    if (/scenarios/i.test(line) && !line.trim().startsWith('-')) inside = heading.test(line.trim());
    const match = /^\s*-\s+(\S+)/.exec(line);
    if (inside && match) names.push(match[1]);
  }
  return names;
}

const results = [];
for (const run of RUNS) {
  if (!only) {
    const listed = await listedScenarios(run.side);
    const missing = listed.filter((name) => !run.scenarios.includes(name));
    if (listed.length === 0 || missing.length > 0) {
      console.log(
        `FAIL ${run.side}: the suite lists ${listed.length} scenarios; not run here: ${missing.join(', ') || '(could not read the list)'}`,
      );
      results.push({ side: run.side, scenario: '(list)', passed: false });
    }
  }
  for (const scenario of run.scenarios) {
    if (only && scenario !== only) continue;
    const outputDir = mkdtempSync(join(tmpdir(), 'mcp-actors-conformance-'));
    const started = Date.now();
    const { code, output } = await runSuite(run.args(run, scenario, outputDir));
    const checks = checkFiles(outputDir).flatMap((file) => JSON.parse(readFileSync(file, 'utf8')));
    const failures = checks.filter((check) => check.status === 'FAILURE');
    const passed = code === 0 && checks.length > 0 && failures.length === 0;
    results.push({ side: run.side, scenario, passed });
    const ms = Date.now() - started;
    console.log(`${passed ? 'PASS' : 'FAIL'} ${run.side} ${scenario} (${checks.length} checks, ${ms} ms)`);
    if (!passed) {
      for (const failure of failures) console.log(`     ${failure.id}: ${failure.description}`);
      if (failures.length === 0)
        console.log(
          output
            .split('\n')
            .slice(-15)
            .map((line) => `     ${line}`)
            .join('\n'),
        );
    }
    if (keep) console.log(`     results: ${outputDir}`);
    else rmSync(outputDir, { recursive: true, force: true });
  }
}
const failed = results.filter((result) => !result.passed);
console.log(`\n${results.length - failed.length}/${results.length} conformance scenarios passed`);
process.exit(failed.length === 0 && results.length > 0 ? 0 : 1);
