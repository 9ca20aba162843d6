#!/usr/bin/env node
/**
 * A host for test/reliability/reaper.test.ts: it runs one long "git" (a shell that sleeps, in the
 * place of a git holding index.lock) through the checkpoint store's process runner, prints its pid,
 * and waits to be SIGKILLed. The reaper must then kill the git, as nothing in the host can.
 */
import { runGitProcess } from '../../../dist/sandbox/git-process.js';
import { reaperPid } from '../../../dist/process/process-groups.js';

const running = runGitProcess(['-c', 'echo $$; exec sleep 600'], {
  command: '/bin/sh',
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  errorCode: 'CHECKPOINT_FAILED',
  label: 'a long git',
  shownArgs: [],
});
running.catch(() => undefined);
// The runner tracks the group as soon as the process exists.
setTimeout(() => {
  process.stdout.write(`${JSON.stringify({ reaper: reaperPid() })}\n`);
}, 200);
setInterval(() => {}, 1 << 30);
