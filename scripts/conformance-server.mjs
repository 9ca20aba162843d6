#!/usr/bin/env node
/**
 * The MCP conformance suite's SERVER scenarios against a domain server of ours
 * (test/external/conformance-server.mjs: defineServer/defineTool, served by serveOverHttp in
 * single-tenant mode), then the MCP Inspector's CLI against served domain servers.
 *
 * The suite (0.1.16) and the Inspector (2.12) live in test/external with their own lock and run on
 * the Node 24 binary there; the domain servers run on the Node running this script (20, 22 or 24).
 * Fails when any required scenario is missing from the results, has a FAILURE or a WARNING, or
 * when an Inspector check fails.
 *
 *   npm run conformance:server                 (builds first)
 *   node scripts/conformance-server.mjs [--only server-initialize,ping] [--keep]
 *
 * Not required (the server has no resources, prompts or completions): completion-complete,
 * resources-*, prompts-*.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REQUIRED_SERVER_SCENARIOS = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'json-schema-2020-12',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
  'server-sse-polling',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

const root = fileURLToPath(new URL('..', import.meta.url));
const external = join(root, 'test', 'external');
const node24 = join(external, 'node_modules', 'node24', 'bin', 'node');
const suite = join(external, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const inspector = join(external, 'node_modules', '.bin', 'mcp-inspector');

const args = process.argv.slice(2);
const onlyAt = args.indexOf('--only');
const scenarios = onlyAt >= 0 ? args[onlyAt + 1].split(',') : REQUIRED_SERVER_SCENARIOS;
const keep = args.includes('--keep');

function fail(message) {
  console.error(`conformance:server: ${message}`);
  process.exit(1);
}

for (const [what, path] of [
  ['the Node 24 binary', node24],
  ['the conformance suite', suite],
  ['the MCP Inspector', inspector],
]) {
  if (!existsSync(path)) fail(`${what} is not installed (${path}); run: cd test/external && npm ci`);
}
if (!existsSync(join(root, 'dist', 'index.js'))) fail('dist/ is missing; run npm run build first (npm run conformance:server does)');

const work = mkdtempSync(join(tmpdir(), 'mcp-actors-conformance-server-'));
const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  if (!keep) rmSync(work, { recursive: true, force: true });
});

/** Starts a served domain server; resolves with its URL (read from its startup line) and the process. */
function serve(script, scriptArgs = [], env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...scriptArgs], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.add(child);
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`${script} printed no URL within 30 s; stderr: ${stderr}`)), 30_000);
    child.stdout.resume();
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const url = /at (http:\/\/\S+)/.exec(stderr)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        console.log(`  ${stderr.split('\n').find((line) => line.includes(url))}`);
        resolve({ url, child });
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before listening; stderr: ${stderr}`)));
  });
}

async function stop(server) {
  children.delete(server.child);
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

function checksUnder(dir) {
  if (!existsSync(dir)) return undefined;
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (entry === 'checks.json') return JSON.parse(readFileSync(path, 'utf8'));
    if (statSync(path).isDirectory()) {
      const found = checksUnder(path);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

// 1. The suite's server scenarios, one at a time (each its own results folder).
console.log(`MCP conformance 0.1.16, server scenarios (${scenarios.length}), domain server on Node ${process.versions.node}:`);
const conformance = await serve(join(external, 'conformance-server.mjs'));
const results = [];
for (const scenario of scenarios) {
  const out = join(work, scenario);
  const run = spawnSync(node24, [suite, 'server', '--url', conformance.url, '--scenario', scenario, '-o', out], {
    cwd: external,
    encoding: 'utf8',
    timeout: 120_000,
  });
  const checks = checksUnder(out);
  const count = (status) => (checks ?? []).filter((check) => check.status === status).length;
  const passed = checks !== undefined && checks.length > 0 && count('FAILURE') === 0 && count('WARNING') === 0;
  results.push({ scenario, passed, success: count('SUCCESS'), failure: count('FAILURE'), warning: count('WARNING') });
  console.log(
    `  ${passed ? 'ok  ' : 'FAIL'} ${scenario}: ${checks === undefined ? `no results (exit ${run.status})` : `${count('SUCCESS')} passed, ${count('FAILURE')} failed, ${count('WARNING')} warnings`}`,
  );
  if (!passed && checks !== undefined) {
    for (const check of checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING'))
      console.log(`       ${check.status} ${check.name}: ${check.errorMessage ?? check.description}`);
  }
  if (!passed && checks === undefined)
    console.log(`       ${(run.stderr || run.stdout || '').trim().split('\n').slice(-5).join('\n       ')}`);
}

// 2. The MCP Inspector's CLI (Node 24) lists and calls served tools.
console.log('MCP Inspector 2.12 CLI against served domain servers:');
const inspectorHome = join(work, 'inspector-home');
const inspectorEnv = { ...process.env, HOME: inspectorHome, MCP_CATALOG_PATH: join(inspectorHome, 'mcp.json') };
const inspectorChecks = [];
/** `exit`: the exit code expected; the CLI exits 5 when a tool answers isError (the result still on stdout). */
function inspect(name, url, extra, expect, exit = 0) {
  const run = spawnSync(node24, [inspector, '--cli', url, '--transport', 'http', ...extra], {
    cwd: external,
    env: inspectorEnv,
    encoding: 'utf8',
    timeout: 120_000,
  });
  let problem;
  try {
    problem =
      run.status === exit
        ? expect(JSON.parse(run.stdout))
        : `exit ${run.status}: ${(run.stderr || run.stdout).trim().split('\n').slice(-3).join(' | ')}`;
  } catch (error) {
    problem = `unreadable output (${error.message}): ${run.stdout.slice(0, 300)}`;
  }
  inspectorChecks.push({ name, passed: problem === undefined });
  console.log(`  ${problem === undefined ? 'ok  ' : 'FAIL'} ${name}${problem === undefined ? '' : `: ${problem}`}`);
}
const textOf = (result) => result.content?.find((block) => block.type === 'text')?.text;
inspect('tools/list on the conformance server', conformance.url, ['--method', 'tools/list'], (out) =>
  out.tools?.some((tool) => tool.name === 'test_simple_text') ? undefined : `no test_simple_text in ${JSON.stringify(out).slice(0, 200)}`,
);
inspect('tools/call test_simple_text', conformance.url, ['--method', 'tools/call', '--tool-name', 'test_simple_text'], (out) =>
  textOf(out) === 'This is a simple text response for testing.' ? undefined : `got ${JSON.stringify(out).slice(0, 200)}`,
);
inspect(
  'tools/call with an argument',
  conformance.url,
  ['--method', 'tools/call', '--tool-name', 'json_schema_2020_12_tool', '--tool-arg', 'name=Ada'],
  (out) => (textOf(out) === 'Hello, Ada' ? undefined : `got ${JSON.stringify(out).slice(0, 200)}`),
);
await stop(conformance);

// The roster fixture, multi-tenant: the tenant comes from the bearer token, never from the message.
const tokens = { 'token-acme': { tenant: 'acme', scopes: [] }, 'token-globex': { tenant: 'globex', scopes: [] } };
const roster = await serve(join(root, 'dist', 'testing', 'domain-server-fixture.mjs'), ['--http'], {
  ROSTER_TOKENS: JSON.stringify(tokens),
});
const week = ['--tool-arg', 'date_from=2026-05-01', 'date_to=2026-05-07'];
inspect(
  'tools/list on a multi-tenant roster with a bearer token',
  roster.url,
  ['--method', 'tools/list', '--header', 'Authorization: Bearer token-acme'],
  (out) =>
    out.tools?.find((tool) => tool.name === 'roster_purge')?._meta?.category === 'restricted'
      ? undefined
      : `got ${JSON.stringify(out).slice(0, 200)}`,
);
inspect(
  "tools/call runs for the token's tenant",
  roster.url,
  ['--method', 'tools/call', '--tool-name', 'roster_list_shifts', ...week, '--header', 'Authorization: Bearer token-globex'],
  (out) => (out.structuredContent?.tenant === 'globex' ? undefined : `got ${JSON.stringify(out).slice(0, 200)}`),
);
inspect(
  'a _meta tenant of another tenant is refused',
  roster.url,
  [
    '--method',
    'tools/call',
    '--tool-name',
    'roster_list_shifts',
    ...week,
    '--tool-metadata',
    'tenant=globex',
    '--header',
    'Authorization: Bearer token-acme',
  ],
  (out) => (out.isError === true && out._meta?.errorCode === 'TENANT_MISMATCH' ? undefined : `got ${JSON.stringify(out).slice(0, 200)}`),
  5,
);
inspect(
  'a restricted tool without its scope is refused',
  roster.url,
  ['--method', 'tools/call', '--tool-name', 'roster_purge', '--tool-arg', 'confirm=true', '--header', 'Authorization: Bearer token-acme'],
  (out) => (out.isError === true && out._meta?.errorCode === 'PERMISSION_DENIED' ? undefined : `got ${JSON.stringify(out).slice(0, 200)}`),
  5,
);
await stop(roster);

// 3. The verdict: every required scenario present and clean, every Inspector check passed.
const missing = REQUIRED_SERVER_SCENARIOS.filter(
  (name) => scenarios.includes(name) && !results.some((result) => result.scenario === name && result.passed),
);
const inspectorFailed = inspectorChecks.filter((check) => !check.passed).map((check) => check.name);
console.log(
  `\n${results.filter((r) => r.passed).length}/${results.length} server scenarios passed; ${inspectorChecks.filter((c) => c.passed).length}/${inspectorChecks.length} Inspector checks passed` +
    (keep ? `; results in ${work}` : ''),
);
if (scenarios.length !== REQUIRED_SERVER_SCENARIOS.length)
  console.log(`(only ${scenarios.length} of ${REQUIRED_SERVER_SCENARIOS.length} required scenarios were run: --only)`);
if (missing.length > 0 || inspectorFailed.length > 0) {
  if (missing.length > 0) console.error(`not passed: ${missing.join(', ')}`);
  if (inspectorFailed.length > 0) console.error(`Inspector checks failed: ${inspectorFailed.join(', ')}`);
  process.exit(1);
}
