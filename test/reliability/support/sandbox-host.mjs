#!/usr/bin/env node
/**
 * A host for test/reliability/sandbox-reopen.test.ts: makes sandbox <id> of <projectDir>, takes a
 * checkpoint in its own store, changes a file, and starts a rollback that stops after its journal
 * (as a host SIGKILLed mid-rollback would). Prints one JSON line, then waits to be killed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Sandbox } from '../../../dist/sandbox/sandbox.js';
import { CheckpointStore } from '../../../dist/sandbox/checkpoint-store.js';

const [projectDir, id] = process.argv.slice(2);
const sandbox = await Sandbox.create({ projectDir, id });
let stall = false;
const store = await CheckpointStore.open({
  root: sandbox.root,
  storeDir: sandbox.checkpointsDir,
  onRollbackStep: async (step) => {
    if (stall && step === 'journal') {
      process.stdout.write(`${JSON.stringify({ root: sandbox.root, checkpoint: before.id, step })}\n`);
      await new Promise(() => {});
    }
  },
});
const before = await store.checkpoint('before');
writeFileSync(join(sandbox.root, 'notes.txt'), 'changed by the agent, then rolled back\n');
writeFileSync(join(sandbox.root, 'extra.txt'), 'made after the checkpoint\n');
await store.checkpoint('after');
stall = true;
void store.rollback(before.id);
setInterval(() => {}, 1 << 30);
