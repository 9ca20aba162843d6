// Sandboxes at the size of real repositories, each figure side by side with git's own operation
// (or the raw MCP SDK) on the same tree in the same run, in alternating rounds:
//
//   ready        runtime.createSandbox(repo) + runtime.activate(actor) with one confined stdio server
//                (server-filesystem on ${SANDBOX_ROOT}) up to its first answered call, vs
//                `git worktree add --detach <tmp> HEAD` + `git status --porcelain -uall` on the host +
//                the same server's cold start unsandboxed (raw SDK Client: spawn to tools listed);
//                on a clean host and with 100 tracked files modified on the host.
//   calls        p50 of write_file and read_text_file through actor.call in the sandbox vs the raw SDK
//                Client on an unsandboxed server over a plain worktree of the same commit.
//   rollback     actor.rollback(checkpointId) after 10 writes: the first of a runtime (it starts the
//                confined rollback worker: vs one bwrap + Node start in the same box) and warm ones
//                (vs `git checkout HEAD -- <the 10 files>`).
//   diff         sandbox.diff() / sandbox.changedFiles() with 10 files changed, vs `git diff HEAD` /
//                `git status --porcelain -uall` on the plain worktree with the same 10 files changed.
//   teardown     actor.deactivate() and runtime.shutdown() (one sandbox) vs the raw client's close()
//                and `git worktree remove --force`.
//   memory       host RSS and heap (after gc) plus the RSS of every descendant process (server,
//                bwrap, rollback worker, git) for one sandbox, above an idle runtime, vs the RSS of
//                the raw unsandboxed server.
//
// Trees: BENCH_SIZES (default '1000,10000,babel'; add 100000 on request) — generated git
// repositories of that many files (fixed seed; cached under BENCH_CACHE, default
// ~/.cache/mcp-actors-bench) and `babel`: the checkout named by BENCH_REPO (babel/babel at 1da3cfa,
// 27,674 files). A run modifies 100 tracked files of each tree for the dirty rounds and puts them
// back afterwards (also on Ctrl-C).
//
//   BENCH_REPO=/path/to/babel BENCH_SIZES=1000,10000,babel node bench/sandbox-scale.mjs --out=FILE
//
// Runs on the built package (dist/, or MCP_ACTORS_DIST). Rounds: BENCH_ROUNDS (ready rounds per
// side, default 5), BENCH_CALL_ROUNDS (default 6) of BENCH_CALLS (default 25) calls of each tool per
// side, BENCH_CHANGE_ROUNDS (default 9). The markdown goes to stdout and to --out=FILE or
// BENCH_OUT; progress goes to stderr. Speed is measured here, never asserted: PASS/MISS only compare
// with the targets.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, homedir, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { descendants, vmRss } from './process-tree.mjs';
import { generatedRepository, pickFiles } from './sandbox-trees.mjs';

const dist = process.env.MCP_ACTORS_DIST
  ? pathToFileURL(`${resolve(process.env.MCP_ACTORS_DIST)}/`).href
  : new URL('../dist/', import.meta.url).href;
const { createRuntime, probeConfinement } = await import(new URL('index.js', dist).href);
const { referenceServerPath } = await import(new URL('testing/index.js', dist).href);
const { rollbackBoxArgs } = await import(new URL('sandbox/confined-rollback.js', dist).href);

const argv = process.argv.slice(2);
const flag = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const OUT = flag('out') ?? process.env.BENCH_OUT;
const SIZES = (flag('sizes') ?? process.env.BENCH_SIZES ?? '1000,10000,babel')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const READY_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALL_ROUNDS = Number(process.env.BENCH_CALL_ROUNDS ?? 6);
const CALLS = Number(process.env.BENCH_CALLS ?? 25);
const CHANGE_ROUNDS = Number(process.env.BENCH_CHANGE_ROUNDS ?? 9);
const CACHE = process.env.BENCH_CACHE ?? join(homedir(), '.cache', 'mcp-actors-bench');
const DIRTY = 100;
const CHANGED = 10;
const BABEL = 'git clone https://github.com/babel/babel && git -C babel checkout 1da3cfa';

const gc = globalThis.gc ?? (setFlagsFromString('--expose-gc'), runInNewContext('gc'));
const now = () => performance.now();
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const log = (line) => process.stderr.write(`${line}\n`);
const execFileP = promisify(execFile);
const git = (cwd, args) => execFileP('git', args, { cwd, maxBuffer: 512 << 20 });
const probe = probeConfinement(process.env.PATH);
const serverPath = referenceServerPath('filesystem');
const problems = [];

const config = {
  servers: { files: { command: process.execPath, args: [serverPath, '${SANDBOX_ROOT}'] } },
  skills: { edit: { mcp_servers: ['files'] } },
  actors: { editor: { skills: ['edit'], permissions: { execute: 'allow' } } },
};

// ---- what a run changes outside itself, put back on every exit ----------------------------------
/** Host files the dirty rounds modified: path → original bytes. */
const dirtied = new Map();
/** Plain worktrees made for the floor: { repo, parent, dir }. */
const floorTrees = new Set();
function restoreHost() {
  for (const [path, bytes] of dirtied) writeFileSync(path, bytes);
  dirtied.clear();
  for (const tree of floorTrees) {
    rmSync(tree.parent, { recursive: true, force: true });
    try {
      execFileSync('git', ['worktree', 'prune'], { cwd: tree.repo, stdio: 'ignore' });
    } catch {
      // the tree is gone; git prunes its bookkeeping next time
    }
  }
  floorTrees.clear();
}
process.on('exit', restoreHost);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    restoreHost();
    process.exit(130);
  });
}

// ---- the two sides ------------------------------------------------------------------------------
function committed(outcome, what) {
  if (outcome.status !== 'committed') throw new Error(`${what} ended ${outcome.status}: ${outcome.error?.code} ${outcome.error?.message}`);
  return outcome;
}
function answered(result, what) {
  if (result.isError) throw new Error(`${what} answered an error: ${result.content?.[0]?.text}`);
  return result;
}

/** The raw SDK Client on the unsandboxed server over `dir`, up to its tools listed. */
async function openRaw(dir) {
  const client = new Client({ name: 'bench', version: '1' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [serverPath, dir], cwd: dir, stderr: 'ignore' });
  await client.connect(transport);
  await client.listTools();
  return { client, pid: transport.pid };
}

async function plainWorktree(repo) {
  const parent = mkdtempSync(join(tmpdir(), 'sandbox-scale-git-'));
  const tree = { repo, parent, dir: join(parent, 'worktree') };
  floorTrees.add(tree);
  return tree;
}
async function removeWorktree(tree) {
  await git(tree.repo, ['worktree', 'remove', '--force', tree.dir]);
  rmSync(tree.parent, { recursive: true, force: true });
  floorTrees.delete(tree);
}

function memoryNow() {
  for (let i = 0; i < 3; i += 1) gc();
  const { rss, heapUsed } = process.memoryUsage();
  const children = descendants();
  return { rss, heapUsed, children, childRss: children.reduce((sum, child) => sum + child.rss, 0) };
}

let writeCount = 0;
const content = (side) => {
  writeCount += 1;
  return `// ${side} write ${writeCount}\n${'export const value = "sandbox-scale";\n'.repeat(26)}`;
};

/**
 * One round of ours: ready (create + activate + first call); when `full`, then 10 writes and the
 * runtime's first rollback, the memory of the sandbox, and the teardown.
 */
async function oursReadyRound(repo, picks, full) {
  const runtime = await createRuntime({ config });
  const idle = full ? memoryNow() : undefined;
  const row = {};
  try {
    const t0 = now();
    const sandbox = await runtime.createSandbox(repo);
    const t1 = now();
    const actor = await runtime.activate('editor', { tenant: 'bench', sandbox });
    const t2 = now();
    committed(await actor.call('files/list_allowed_directories', {}), 'the first call (list_allowed_directories)');
    const t3 = now();
    Object.assign(row, { ready: t3 - t0, createSandbox: t1 - t0, activate: t2 - t1, firstCall: t3 - t2 });
    if (full) {
      const before = actor.checkpoints().at(-1)?.id;
      for (const path of picks.write)
        committed(await actor.call('files/write_file', { path, content: content('ours') }), `write_file ${path}`);
      const t4 = now();
      await actor.rollback(before);
      row.firstRollback = now() - t4;
      const back = readFileSync(join(sandbox.root, picks.write[0]), 'utf8');
      if (back !== readFileSync(join(repo, picks.write[0]), 'utf8')) throw new Error(`the first rollback left ${picks.write[0]} changed`);
      const used = memoryNow();
      row.memory = {
        hostRss: used.rss - idle.rss,
        heap: used.heapUsed - idle.heapUsed,
        childRss: used.childRss - idle.childRss,
        children: used.children.filter((child) => !idle.children.some((c) => c.pid === child.pid)).map(({ name, rss }) => ({ name, rss })),
      };
      row.memory.total = row.memory.hostRss + row.memory.childRss;
    }
    const t5 = now();
    await actor.deactivate();
    row.deactivate = now() - t5;
  } finally {
    const t6 = now();
    await runtime.shutdown();
    row.shutdown = now() - t6;
  }
  return row;
}

/** One bwrap + Node start in the rollback worker's box, to its first line: the worker's floor. */
async function workerStart(root) {
  if (!probe.available) return undefined;
  const store = mkdtempSync(join(tmpdir(), 'sandbox-scale-store-'));
  try {
    const t0 = now();
    const child = spawn(probe.bwrap, [...rollbackBoxArgs(root, store), '--', process.execPath, '-e', "process.stdout.write('up\\n')"], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise((done) => child.once('exit', done));
    await new Promise((done, fail) => {
      child.stdout.once('data', done);
      child.once('error', fail);
      child.once('exit', (code) => fail(new Error(`bwrap exited ${code} before the worker answered: ${stderr.trim()}`)));
    });
    const ms = now() - t0;
    await exited;
    return ms;
  } finally {
    rmSync(store, { recursive: true, force: true });
  }
}

/** One round of the floor: worktree + status + the raw server's cold start; when `full`, its memory, a worker start, the teardown. */
async function floorReadyRound(repo, full) {
  const tree = await plainWorktree(repo);
  const row = {};
  const t0 = now();
  await git(repo, ['worktree', 'add', '--detach', tree.dir, 'HEAD']);
  const t1 = now();
  await git(repo, ['status', '--porcelain', '-uall']);
  const t2 = now();
  const raw = await openRaw(tree.dir);
  const t3 = now();
  Object.assign(row, { ready: t3 - t0, worktreeAdd: t1 - t0, status: t2 - t1, coldStart: t3 - t2 });
  try {
    if (full) {
      row.serverRss = vmRss(raw.pid);
      row.workerStart = await workerStart(tree.dir);
    }
  } finally {
    const t4 = now();
    await raw.client.close();
    row.close = now() - t4;
    const t5 = now();
    await removeWorktree(tree);
    row.remove = now() - t5;
  }
  return row;
}

/** Modifies `paths` on the host (appends a line to each); restoreDirty() puts them back. */
function dirty(repo, paths) {
  for (const path of paths) {
    const file = join(repo, path);
    const bytes = readFileSync(file);
    dirtied.set(file, bytes);
    writeFileSync(file, Buffer.concat([bytes, Buffer.from('// changed on the host by bench/sandbox-scale.mjs\n')]));
  }
}
async function restoreDirty(repo) {
  for (const [path, bytes] of dirtied) writeFileSync(path, bytes);
  dirtied.clear();
  await git(repo, ['update-index', '-q', '--refresh']).catch(() => undefined);
}

/**
 * Waits (up to 10 s) until no process of an earlier round is left (the reaper lingers 3 s after the
 * last group it guarded): every round starts as a fresh host would, and the memory above an idle
 * runtime counts only what this round's sandbox started.
 */
async function quiet() {
  const until = now() + 10_000;
  while (descendants().length > 0 && now() < until) await new Promise((done) => setTimeout(done, 100));
}

async function readyRounds(repo, picks, rounds, full, label) {
  const pairs = [];
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? ['ours', 'floor'] : ['floor', 'ours'];
    const pair = {};
    for (const side of order) {
      await quiet();
      pair[side] = side === 'ours' ? await oursReadyRound(repo, picks, full) : await floorReadyRound(repo, full);
    }
    log(`  ${label} round ${round + 1}/${rounds}: ours ${pair.ours.ready.toFixed(0)} ms, floor ${pair.floor.ready.toFixed(0)} ms`);
    pairs.push(pair);
  }
  return pairs;
}

/** Calls, diff, changed files and warm rollbacks: one sandbox and one plain worktree, open throughout. */
async function steadyRounds(repo, picks) {
  const runtime = await createRuntime({ config });
  const tree = await plainWorktree(repo);
  let raw;
  try {
    const sandbox = await runtime.createSandbox(repo);
    const actor = await runtime.activate('editor', { tenant: 'bench', sandbox });
    await git(repo, ['worktree', 'add', '--detach', tree.dir, 'HEAD']);
    raw = await openRaw(tree.dir);
    const sides = {
      ours: {
        write: async (path) => committed(await actor.call('files/write_file', { path, content: content('ours') }), `write_file ${path}`),
        read: async (path) => {
          const outcome = committed(await actor.call('files/read_text_file', { path }), `read_text_file ${path}`);
          if (!outcome.result.content[0].text) throw new Error(`read_text_file ${path} answered nothing`);
        },
      },
      raw: {
        write: async (path) =>
          answered(
            await raw.client.callTool({ name: 'write_file', arguments: { path: join(tree.dir, path), content: content('raw') } }),
            `raw write_file ${path}`,
          ),
        read: async (path) => {
          const result = answered(
            await raw.client.callTool({ name: 'read_text_file', arguments: { path: join(tree.dir, path) } }),
            `raw read_text_file ${path}`,
          );
          if (!result.content[0].text) throw new Error(`raw read_text_file ${path} answered nothing`);
        },
      },
    };
    // Warm-up: a few calls each, and one rollback (the worker is then up, as in a working session).
    for (const side of Object.values(sides)) {
      for (let i = 0; i < 5; i += 1) await side.write(picks.write[i % CHANGED]);
      for (let i = 0; i < 5; i += 1) await side.read(picks.read[i % picks.read.length]);
    }
    await actor.rollback(actor.checkpoints().at(-2)?.id);

    const calls = { ours: { write: [], read: [] }, raw: { write: [], read: [] } };
    for (let round = 0; round < CALL_ROUNDS; round += 1) {
      for (const name of round % 2 === 0 ? ['ours', 'raw'] : ['raw', 'ours']) {
        for (const tool of ['write', 'read']) {
          const paths = tool === 'write' ? picks.write : picks.read;
          for (let i = 0; i < CALLS; i += 1) {
            const t0 = now();
            await sides[name][tool](paths[i % paths.length]);
            calls[name][tool].push(now() - t0);
          }
        }
      }
    }
    log(`  calls: ${CALL_ROUNDS} rounds of ${CALLS} writes and ${CALLS} reads a side`);

    const changes = { diff: [], changedFiles: [], rollback: [], gitDiff: [], gitStatus: [], gitCheckout: [] };
    for (let round = 0; round < CHANGE_ROUNDS; round += 1) {
      for (const name of round % 2 === 0 ? ['ours', 'raw'] : ['raw', 'ours']) {
        const before = name === 'ours' ? actor.checkpoints().at(-1)?.id : undefined;
        for (const path of picks.write) await sides[name].write(path);
        if (name === 'ours') {
          let t0 = now();
          const patch = await sandbox.diff();
          changes.diff.push(now() - t0);
          t0 = now();
          const changed = await sandbox.changedFiles();
          changes.changedFiles.push(now() - t0);
          if (!patch.includes(picks.write[0]) || changed.length !== CHANGED) {
            throw new Error(`sandbox.diff()/changedFiles() saw ${changed.length} changed files, not the ${CHANGED} written`);
          }
          const expected = readFileSync(join(sandbox.root, picks.write[0]), 'utf8');
          t0 = now();
          await actor.rollback(before);
          changes.rollback.push(now() - t0);
          if (readFileSync(join(sandbox.root, picks.write[0]), 'utf8') === expected)
            throw new Error('actor.rollback() left the last write in place');
        } else {
          let t0 = now();
          const patch = (await git(tree.dir, ['diff', 'HEAD'])).stdout;
          changes.gitDiff.push(now() - t0);
          t0 = now();
          const status = (await git(tree.dir, ['status', '--porcelain', '-uall'])).stdout.trim().split('\n');
          changes.gitStatus.push(now() - t0);
          if (!patch.includes(picks.write[0]) || status.length !== CHANGED)
            throw new Error(`git saw ${status.length} changed files, not ${CHANGED}`);
          t0 = now();
          await git(tree.dir, ['checkout', '-q', 'HEAD', '--', ...picks.write]);
          changes.gitCheckout.push(now() - t0);
        }
      }
    }
    log(`  changes: ${CHANGE_ROUNDS} rounds of ${CHANGED} writes, diff, changed files and rollback a side`);
    return { calls, changes };
  } finally {
    await raw?.client.close();
    await runtime.shutdown();
    await removeWorktree(tree).catch(() => undefined);
  }
}

// ---- one tree -----------------------------------------------------------------------------------
async function measureTree(name, repo) {
  log(`\n${name}: ${repo}`);
  const files = Number((await git(repo, ['ls-files', '-z'])).stdout.split('\0').filter(Boolean).length);
  const picks = pickFiles(repo, { write: CHANGED, read: 10, dirty: DIRTY });
  await git(repo, ['worktree', 'prune']);
  await git(repo, ['update-index', '-q', '--refresh']).catch(() => undefined);
  const head = (await git(repo, ['rev-parse', '--short=10', 'HEAD'])).stdout.trim();
  const hostStatus = (await git(repo, ['status', '--porcelain'])).stdout.trim();
  if (hostStatus !== '')
    problems.push(`${name}: the host checkout was not clean before the run (${hostStatus.split('\n').length} entries in git status)`);

  const clean = await readyRounds(repo, picks, READY_ROUNDS, true, 'ready, clean');
  dirty(repo, picks.dirty);
  let dirtyPairs;
  try {
    dirtyPairs = await readyRounds(repo, picks, READY_ROUNDS, false, `ready, ${DIRTY} dirty`);
  } finally {
    await restoreDirty(repo);
  }
  const steady = await steadyRounds(repo, picks);
  return { name, repo, files, head, clean, dirty: dirtyPairs, ...steady };
}

// ---- the report ---------------------------------------------------------------------------------
const msText = (x) =>
  x === undefined || Number.isNaN(x) ? 'n/a' : x >= 100 ? `${Math.round(x).toLocaleString('en')} ms` : `${x.toFixed(1)} ms`;
const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const ratioText = (x) => (x === undefined || !Number.isFinite(x) ? '—' : `${x < 0.1 ? x.toPrecision(2) : x.toFixed(2)}×`);
const verdict = (ok) => (ok === undefined ? '—' : ok ? 'PASS' : 'MISS');

function treeTable(result) {
  const pick = (pairs, side, field) => pairs.map((pair) => pair[side][field]).filter((x) => x !== undefined);
  const readyRow = (label, pairs) => {
    const ours = median(pick(pairs, 'ours', 'ready'));
    const floor = median(pick(pairs, 'floor', 'ready'));
    const ratio = median(pairs.map((pair) => pair.ours.ready / pair.floor.ready));
    const parts = `worktree add ${msText(median(pick(pairs, 'floor', 'worktreeAdd')))} + status ${msText(median(pick(pairs, 'floor', 'status')))} + server cold start ${msText(median(pick(pairs, 'floor', 'coldStart')))}`;
    const mine = `${msText(ours)} (sandbox ${msText(median(pick(pairs, 'ours', 'createSandbox')))} + activate ${msText(median(pick(pairs, 'ours', 'activate')))} + first call ${msText(median(pick(pairs, 'ours', 'firstCall')))})`;
    return `| ${label} | ${mine} | ${msText(floor)} (${parts}) | ${ratioText(ratio)} | ≤ 1.3× | ${verdict(ratio <= 1.3)} |`;
  };
  const { calls, changes, clean } = result;
  const write = { ours: median(calls.ours.write), raw: median(calls.raw.write) };
  const read = { ours: median(calls.ours.read), raw: median(calls.raw.read) };
  const firstRollback = median(pick(clean, 'ours', 'firstRollback'));
  const worker = probe.available ? median(pick(clean, 'floor', 'workerStart')) : 0;
  const warm = median(changes.rollback);
  const diff = median(changes.diff);
  const changed = median(changes.changedFiles);
  const deactivate = median(pick(clean, 'ours', 'deactivate'));
  const shutdown = median(pick(clean, 'ours', 'shutdown'));
  const memories = clean.map((pair) => pair.ours.memory);
  const memory = {
    total: median(memories.map((m) => m.total)),
    hostRss: median(memories.map((m) => m.hostRss)),
    heap: median(memories.map((m) => m.heap)),
    childRss: median(memories.map((m) => m.childRss)),
  };
  // Per kind of process: how many and their RSS, in the round whose total is the median.
  const typical = memories.find((m) => m.total === memory.total) ?? memories[0];
  const kinds = new Map();
  for (const { name, rss } of typical.children) {
    const kind = kinds.get(name) ?? { count: 0, rss: 0 };
    kinds.set(name, { count: kind.count + 1, rss: kind.rss + rss });
  }
  const children =
    [...kinds]
      .sort((a, b) => b[1].rss - a[1].rss)
      .map(([name, k]) => `${k.count > 1 ? `${k.count} × ` : ''}${name} ${mib(k.rss)}`)
      .join(', ') || 'none';
  const serverRss = median(pick(clean, 'floor', 'serverRss'));
  const rows = [
    readyRow('ready, clean host', result.clean),
    readyRow(`ready, ${DIRTY} dirty files on the host`, result.dirty),
    `| write_file call, p50 | ${msText(write.ours)} (added ${msText(write.ours - write.raw)}) | ${msText(write.raw)} (raw SDK, unsandboxed) | ${ratioText(write.ours / write.raw)} | added ≤ 25 ms | ${verdict(write.ours - write.raw <= 25)} |`,
    `| read_text_file call, p50 | ${msText(read.ours)} (added ${msText(read.ours - read.raw)}) | ${msText(read.raw)} (raw SDK, unsandboxed) | ${ratioText(read.ours / read.raw)} | ≤ raw + 2 ms | ${verdict(read.ours - read.raw <= 2)} |`,
    `| rollback of ${CHANGED} files, first of a runtime | ${msText(firstRollback)} | ${probe.available ? `${msText(worker)} (worker start: bwrap + Node in its box)` : 'none (no bubblewrap: rollbacks run in the host)'} | ${ratioText(firstRollback / worker)} | ≤ worker start + 100 ms | ${verdict(firstRollback <= worker + 100)} |`,
    `| rollback of ${CHANGED} files, warm, p50 | ${msText(warm)} | ${msText(median(changes.gitCheckout))} (git checkout HEAD -- ${CHANGED} files) | ${ratioText(warm / median(changes.gitCheckout))} | ≤ 100 ms | ${verdict(warm <= 100)} |`,
    `| sandbox.diff(), ${CHANGED} files changed, p50 | ${msText(diff)} | ${msText(median(changes.gitDiff))} (git diff HEAD) | ${ratioText(diff / median(changes.gitDiff))} | ≤ 100 ms | ${verdict(diff <= 100)} |`,
    `| sandbox.changedFiles(), ${CHANGED} files changed, p50 | ${msText(changed)} | ${msText(median(changes.gitStatus))} (git status --porcelain -uall) | ${ratioText(changed / median(changes.gitStatus))} | ≤ 100 ms | ${verdict(changed <= 100)} |`,
    `| actor.deactivate() | ${msText(deactivate)} | ${msText(median(pick(clean, 'floor', 'close')))} (raw client close()) | ${ratioText(deactivate / median(pick(clean, 'floor', 'close')))} | ≤ 1 s | ${verdict(deactivate <= 1000)} |`,
    `| runtime.shutdown(), one sandbox | ${msText(shutdown)} | ${msText(median(pick(clean, 'floor', 'remove')))} (git worktree remove --force) | ${ratioText(shutdown / median(pick(clean, 'floor', 'remove')))} | ≤ 1 s | ${verdict(shutdown <= 1000)} |`,
    `| memory of one sandbox, above an idle runtime | ${mib(memory.total)} (host RSS ${mib(memory.hostRss)}, of it heap ${mib(memory.heap)}; processes ${mib(memory.childRss)}: ${children}) | ${mib(serverRss)} (the raw server's RSS) | ${ratioText(memory.total / serverRss)} | ≤ 64 MiB (report) | ${verdict(memory.total <= 64 * 1024 * 1024)} |`,
  ];
  return [
    `### ${result.name}: ${result.files.toLocaleString('en')} tracked files (HEAD ${result.head})`,
    '',
    `${result.clean.length} + ${result.dirty.length} ready rounds a side, alternating; calls: ${CALL_ROUNDS} rounds × ${CALLS} of each tool a side (p50 of all); changes: ${CHANGE_ROUNDS} rounds. Ready ratio: median of the rounds' ratios; other ratios: ours / floor.`,
    '',
    '| figure | ours | floor (same run) | ratio | target | result |',
    '|---|---:|---:|---:|---|---|',
    ...rows,
    '',
  ].join('\n');
}

function machine(loadStart, loadEnd) {
  const cpu = cpus();
  const gitVersion = execFileSync('git', ['--version']).toString().trim();
  return [
    `Machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${mib(totalmem())} memory, ${platform()} ${release()}; Node ${process.version}; ${gitVersion}; ` +
      `bubblewrap ${probe.available ? `at ${probe.bwrap} (servers and rollbacks confined)` : `unavailable (${probe.reason})`}.`,
    `Load average (1/5/15 min) at start: ${loadStart}; at end: ${loadEnd}.`,
  ].join('\n');
}
const loadNow = () => {
  try {
    return readFileSync('/proc/loadavg', 'utf8').trim().split(' ').slice(0, 3).join(' ');
  } catch {
    return loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
  }
};

// ---- main ---------------------------------------------------------------------------------------
const loadStart = loadNow();
const sections = [];
const skipped = [];
const startedAt = now();
for (const size of SIZES) {
  let repo;
  let name;
  if (size === 'babel') {
    if (!process.env.BENCH_REPO) {
      skipped.push(`babel: skipped, BENCH_REPO is not set. Get the tree with \`${BABEL}\` and run with BENCH_REPO=$PWD/babel.`);
      log(`\nbabel: skipped (set BENCH_REPO to a checkout: ${BABEL})`);
      continue;
    }
    repo = resolve(process.env.BENCH_REPO);
    name = 'babel/babel';
  } else {
    const count = Number(size);
    if (!Number.isInteger(count) || count < 200) throw new Error(`BENCH_SIZES: "${size}" is neither a file count (>= 200) nor "babel"`);
    repo = generatedRepository(CACHE, count, log);
    name = `generated, ${count.toLocaleString('en')} files`;
  }
  sections.push(treeTable(await measureTree(name, repo)));
}

// Nothing the runtime started should outlive its shutdown: what is still there 0.5 s after the last
// one is reported, with how long it stayed (watched for up to 15 s).
const lastShutdown = now();
await new Promise((done) => setTimeout(done, 500));
const left = descendants();
if (left.length > 0) {
  let remaining = left;
  while (remaining.length > 0 && now() - lastShutdown < 15_000) {
    await new Promise((done) => setTimeout(done, 100));
    remaining = descendants().filter((child) => left.some((l) => l.pid === child.pid));
  }
  const stayed = remaining.length > 0 ? 'still running 15 s after it' : `gone ${((now() - lastShutdown) / 1000).toFixed(1)} s after it`;
  problems.push(
    `running 0.5 s after the last runtime.shutdown() returned: ${left.map((child) => `${child.name} (pid ${child.pid}, ${mib(child.rss)})`).join(', ')}; ${stayed}`,
  );
}

const markdown = [
  '## Sandboxes at the size of real repositories',
  '',
  machine(loadStart, loadNow()),
  `Run took ${((now() - startedAt) / 1000).toFixed(0)} s (\`node bench/sandbox-scale.mjs\`, BENCH_SIZES=${SIZES.join(',')}).`,
  '',
  ...sections,
  ...skipped.map((line) => `${line}\n`),
  ...(problems.length > 0 ? ['Problems seen:', ...problems.map((p) => `- ${p}`), ''] : []),
].join('\n');
console.log(`\n${markdown}`);
if (OUT) writeFileSync(OUT, `${markdown}\n`);
process.exit(0);
