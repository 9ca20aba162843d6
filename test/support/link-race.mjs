#!/usr/bin/env node
/**
 * The race of issue 15, run end to end through the built runtime and
 * @modelcontextprotocol/server-filesystem in a sandbox: while each write_file call runs, the
 * attacker (link-racer.mjs, a process of its own) swaps the directory it writes into for a symlink
 * to a folder outside the sandbox — once at a tuned moment (`planted`) or as fast as it can
 * (`flipping`). Prints one JSON summary; the test decides what it must show. Plain JavaScript:
 * spawned with Node 20, also as an unprivileged user (setpriv), so it builds on dist/.
 *
 *   node test/support/link-race.mjs <planted|flipping> <confined|unconfined> <writes> [untilEscape]
 *
 * With `untilEscape`, writes go on (up to 5 × <writes>) until one lands outside.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createRuntime } from '../../dist/index.js';
import { referenceServerPath } from '../../dist/testing/index.js';

const [race = '', mode = '', writesText = '300', until = ''] = process.argv.slice(2);
if (!['planted', 'flipping'].includes(race) || !['confined', 'unconfined'].includes(mode)) {
  process.stderr.write('usage: link-race.mjs <planted|flipping> <confined|unconfined> <writes> [untilEscape]\n');
  process.exit(2);
}
const writes = Number(writesText);
const untilEscape = until === 'untilEscape';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-actors-race-')));
const project = join(work, 'project');
const outside = join(work, 'outside');
const stops = join(work, 'stops');
for (const dir of [project, outside, stops]) mkdirSync(dir);
writeFileSync(join(project, 'README.md'), 'race\n');
// What the link points at holds files of its own: a rollback that follows the link would delete them.
const KEPT = ['existing', 'kept/nested'];
mkdirSync(join(outside, 'kept'));
for (const name of KEPT) writeFileSync(join(outside, name), 'keep\n');

const racer = spawn(process.execPath, [fileURLToPath(new URL('./link-racer.mjs', import.meta.url))], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const answers = new Map();
createInterface({ input: racer.stdout }).on('line', (line) => {
  const [, n] = line.split(' ');
  answers.get(n)?.();
});
const tell = (fields) =>
  new Promise((resolve) => {
    answers.set(fields[1], resolve);
    racer.stdin.write(`${fields.join('\t')}\n`);
  });

const runtime = await createRuntime({
  config: {
    servers: {
      files: {
        command: process.execPath,
        args: [referenceServerPath('filesystem'), '${SANDBOX_ROOT}'],
        // confined: the default (on wherever the probe succeeds); unconfined: opted out.
        ...(mode === 'unconfined' ? { confine: false } : {}),
      },
    },
    skills: { edit: { mcp_servers: ['files'] } },
    actors: { editor: { skills: ['edit'], permissions: { execute: 'allow' } } },
  },
});
const escapesSeen = [];
runtime.events$.subscribe((event) => {
  if (event.type === 'sandbox.escape') escapesSeen.push(event.callId);
});

const summary = { race, mode, uid: process.getuid?.(), confinement: undefined, calls: [], outside: [], lost: [], mismatches: [] };
try {
  const sandbox = await runtime.createSandbox(project);
  const editor = await runtime.activate('editor', { tenant: 'race', sandbox });
  await editor.call('files/list_directory', { path: '.' });
  summary.confinement = runtime.status().servers.find((s) => s.server === 'files')?.confinement;

  let delayUs = 15_000;
  const limit = untilEscape ? writes * 5 : writes;
  // What the race wrote outside: everything there but the files kept there from the start.
  const escaped = () => readdirSync(outside).filter((name) => name !== 'existing' && name !== 'kept');
  for (let n = 0; n < limit; n++) {
    if (untilEscape && n >= writes && escaped().length > 0) break;
    const dir = join(sandbox.root, `d-${n}`);
    mkdirSync(dir);
    const stopFile = join(stops, String(n));
    const file = `f-${n}.txt`;
    const jitter = delayUs * (0.8 + Math.random() * 0.4);
    const raced =
      race === 'planted'
        ? tell(['plant', String(n), dir, outside, String(Math.round(jitter)), stopFile])
        : tell(['flip', String(n), dir, outside, file, stopFile]);
    const outcome = await editor.call('files/write_file', { path: `d-${n}/${file}`, content: `content-${n}` });
    writeFileSync(stopFile, '');
    await raced;
    const call = {
      n,
      status: outcome.status,
      code: outcome.error?.code,
      ...(outcome.error?.code === 'CHECKPOINT_FAILED' ? { message: outcome.error.message } : {}),
      changed: outcome.changes.map((c) => `${c.kind} ${c.type} ${c.path}`),
    };
    summary.calls.push(call);
    // Tune the planted moment towards the edge: the link came too early if the write was refused,
    // too late if the file is already inside.
    if (race === 'planted') {
      const inside = safeExists(join(dir, file));
      delayUs = Math.max(200, Math.min(60_000, delayUs * (inside ? 0.93 : 1.07)));
    }
  }

  summary.outside = escaped();
  summary.lost = KEPT.filter((name) => !safeExists(join(outside, name)));
  const insideFiles = new Map();
  walk(sandbox.root, (path) => {
    const name = path.split('/').pop() ?? '';
    if (/^f-\d+\.txt$/.test(name)) insideFiles.set(name, readFileSync(path, 'utf8'));
  });
  for (const call of summary.calls) {
    const file = `f-${call.n}.txt`;
    const inside = insideFiles.get(file);
    const out = summary.outside.includes(file);
    const listed = call.changed.some((c) => c.startsWith('added file') && c.endsWith(`/${file}`));
    let ok;
    if (call.status === 'committed') ok = inside === `content-${call.n}` && listed && !out;
    // A rollback must succeed even while the racer flips the directory under it (it runs again
    // when a step meets a concurrent change): CHECKPOINT_FAILED is a mismatch when confined.
    else if (call.code === 'CHECKPOINT_FAILED') ok = mode === 'unconfined';
    else ok = inside === undefined && (!out || call.code === 'SANDBOX_ESCAPE');
    if (!ok) summary.mismatches.push({ ...call, inside: inside !== undefined, outside: out, listed });
  }
  summary.escapeEvents = escapesSeen.length;
} finally {
  racer.stdin.end();
  await runtime.shutdown();
  rmSync(work, { recursive: true, force: true });
}
const counts = {};
for (const call of summary.calls)
  counts[`${call.status}${call.code ? ` ${call.code}` : ''}`] = (counts[`${call.status}${call.code ? ` ${call.code}` : ''}`] ?? 0) + 1;
process.stdout.write(`${JSON.stringify({ ...summary, counts, calls: summary.calls.length })}\n`);

function safeExists(path) {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function walk(dir, visit) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && relative(dir, path) !== '.git') walk(path, visit);
    else if (entry.isFile()) visit(path);
  }
}
