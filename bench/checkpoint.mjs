// Checkpoint and rollback costs on trees of small text files in nested directories. Run after
// `npm run build` with `node bench/checkpoint.mjs`; MCP_ACTORS_DIST points at another build
// (e.g. `npx tsc -p tsconfig.build.json --outDir /tmp/ckpt-build` and MCP_ACTORS_DIST=/tmp/ckpt-build).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = process.env.MCP_ACTORS_DIST
  ? pathToFileURL(`${resolve(process.env.MCP_ACTORS_DIST)}/`).href
  : new URL('../dist/', import.meta.url).href;
const { CheckpointStore } = await import(new URL('sandbox/checkpoint-store.js', dist).href);
const { walkTree } = await import(new URL('sandbox/tree-manifest.js', dist).href);
const { probeConfinement } = await import(new URL('actors/confinement/probe.js', dist).href);
const probe = probeConfinement(process.env.PATH);

const SIZES = (process.env.BENCH_SIZES ?? '1000,10000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const FIRST_ROUNDS = Number(process.env.BENCH_FIRST_ROUNDS ?? 3);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => (x === undefined ? 'n/a (no bubblewrap)' : `${x.toFixed(1)} ms`);
const now = () => performance.now();

/** `count` files of about 60 bytes, 20 to a directory, directories two levels deep. */
function buildTree(root, count) {
  const paths = [];
  for (let i = 0; i < count; i += 1) {
    const dir = join(`pkg${Math.floor(i / 400)}`, `mod${Math.floor(i / 20) % 20}`);
    const path = join(dir, `file${i}.txt`);
    mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, path), `line one of file ${i}\nline two of file ${i}\n`);
    paths.push(path);
  }
  return paths;
}

let edits = 0;
/** Rewrites `count` files; returns their paths (what a watcher would report). */
function changeFiles(root, paths, count) {
  edits += 1;
  const changed = [];
  for (let i = 0; i < count; i += 1) {
    const path = paths[(edits * 7919 + i * 104_729) % paths.length];
    writeFileSync(join(root, path), `edit ${edits} of ${path}\n`);
    changed.push(path);
  }
  return changed;
}

async function timed(run) {
  const t0 = now();
  await run();
  return now() - t0;
}

async function measure(count) {
  const root = mkdtempSync(join(tmpdir(), 'ckpt-bench-'));
  const stores = [];
  try {
    const paths = buildTree(root, count);
    const row = { files: count };

    const first = [];
    let store;
    for (let round = 0; round < FIRST_ROUNDS; round += 1) {
      await store?.dispose();
      store = await CheckpointStore.open({ root });
      first.push(await timed(() => store.checkpoint('first')));
    }
    stores.push(store);
    row.first = median(first);
    if (process.env.BENCH_VERBOSE) console.error(`first checkpoint rounds (${count} files): ${first.map(ms).join(', ')}`);

    const walks = [];
    for (let round = 0; round < ROUNDS; round += 1) walks.push(await timed(() => walkTree(root)));
    row.walk = median(walks);

    for (const changed of [0, 1, 10, 100]) {
      const times = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        changeFiles(root, paths, changed);
        times.push(await timed(() => store.checkpoint()));
      }
      row[`changed${changed}`] = median(times);
    }

    // Told which paths changed (as the sandbox's watcher does): no walk of the whole tree.
    for (const changed of [1, 10]) {
      const times = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const changedPaths = changeFiles(root, paths, changed);
        times.push(await timed(() => store.checkpoint(undefined, { changedPaths })));
      }
      row[`hinted${changed}`] = median(times);
    }

    const rollbacks = [];
    const since = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const target = await store.checkpoint();
      changeFiles(root, paths, 10);
      since.push(await timed(() => store.changesSince(target.id)));
      rollbacks.push(await timed(() => store.rollback(target.id)));
    }
    row.rollback10 = median(rollbacks);
    row.since10 = median(since);

    // The same in the runtime's way, wherever bubblewrap works: in the store's confined worker
    // (its start, at the first rollback, is left out), and the checkpoint after it, which walks.
    if (probe.available) {
      const confined = await CheckpointStore.open({ root, confineRollback: { bwrap: probe.bwrap } });
      stores.push(confined);
      const warm = await confined.checkpoint();
      changeFiles(root, paths, 1);
      await confined.rollback(warm.id);
      const [confinedRollbacks, after] = [[], []];
      for (let round = 0; round < ROUNDS; round += 1) {
        const target = await confined.checkpoint();
        changeFiles(root, paths, 10);
        confinedRollbacks.push(await timed(() => confined.rollback(target.id)));
        after.push(await timed(() => confined.checkpoint()));
      }
      row.confinedRollback10 = median(confinedRollbacks);
      row.afterConfined = median(after);
    }

    // A new process: no walk in memory, so every path goes to git's stat cache once.
    const reopened = [];
    for (let round = 0; round < Math.min(ROUNDS, 3); round += 1) {
      changeFiles(root, paths, 1);
      const again = await CheckpointStore.open({ root, storeDir: store.storeDir });
      reopened.push(await timed(() => again.checkpoint()));
    }
    row.reopened1 = median(reopened);
    return row;
  } finally {
    for (const store of stores) await store.dispose();
    rmSync(root, { recursive: true, force: true });
  }
}

const rows = [];
for (const count of SIZES) rows.push(await measure(count));

console.log(`Checkpoint store, median of ${ROUNDS} rounds (first checkpoint: ${FIRST_ROUNDS}); Node ${process.version}\n`);
console.log(
  '| files | first checkpoint | walk only (lstat all) | checkpoint, 0 changed | 1 changed | 10 changed | 100 changed | 1 changed, hinted | 10 changed, hinted | changesSince, 10 changed | rollback of 10 changed | the same, confined | checkpoint after it | 1 changed, after reopen |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const row of rows) {
  const cells = [
    row.first,
    row.walk,
    row.changed0,
    row.changed1,
    row.changed10,
    row.changed100,
    row.hinted1,
    row.hinted10,
    row.since10,
    row.rollback10,
    row.confinedRollback10,
    row.afterConfined,
    row.reopened1,
  ];
  console.log(`| ${row.files.toLocaleString('en')} | ${cells.map(ms).join(' | ')} |`);
}
