// The confined rollback worker of one checkpoint store, run inside bubblewrap by
// CheckpointStore (see confined-rollback.ts): the whole host is read-only here except the tracked
// tree and the store, so a directory that another process swaps for a symlink while git's checkout
// or a restore step looks at it cannot make either delete or write anything outside.
//
// One request per stdin line: the host has written the rollback's journal; opening the store
// finishes it (with the store's own retries), and one JSON line answers. The worker exits when
// stdin ends. Plain JavaScript: it is spawned as a process.
//
//   node confined-rollback.mjs <root> <storeDir>
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const [root, storeDir] = process.argv.slice(2);
const beside = new URL('./checkpoint-store.js', import.meta.url);
// Beside the compiled store in dist/; run from src/ (the test suite, which builds first), the built one.
const module = existsSync(fileURLToPath(beside)) ? beside : new URL('../../dist/sandbox/checkpoint-store.js', import.meta.url);
const { CheckpointStore } = await import(module.href);

async function finish() {
  try {
    await CheckpointStore.open({ root, storeDir });
    return { ok: true };
  } catch (error) {
    const codes = [];
    for (let at = error, depth = 0; at && depth < 4; depth += 1, at = at.cause) if (typeof at.code === 'string') codes.push(at.code);
    return { ok: false, message: error instanceof Error ? error.message : String(error), codes, details: error?.details };
  }
}

let queue = Promise.resolve();
createInterface({ input: process.stdin }).on('line', () => {
  queue = queue.then(async () => process.stdout.write(`${JSON.stringify(await finish())}\n`));
});
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
