#!/usr/bin/env node
/**
 * A host process for test/integration/host-exit.test.ts: it embeds the built runtime, starts one
 * fixture server (which forks a long-lived grandchild into its process group), prints the pids,
 * then ends the way the test chose. The test then checks that nothing the runtime spawned is left.
 *
 *   node test/support/host-process.mjs <how> [shell|direct]
 *
 * <how> (the first three act on the first line the test writes to the host's stdin):
 *   exit            process.exit(0) without stopping anything
 *   throw           an uncaught exception (Node exits with code 1)
 *   rejection       an unhandled promise rejection (Node 20 throws it: code 1)
 *   wait            stay alive with no signal handler; the test sends SIGTERM, SIGINT, SIGHUP or SIGKILL
 *   handle-sigterm  install a SIGTERM handler that does not exit the first time (prints
 *                   `{"handled":1}`) and calls process.exit(3) the second time
 * shell (default): the server runs behind `/bin/sh -c`, so the group leader is the shell, the
 * server its child and the grandchild the server's child; direct: the server leads its group.
 *
 * Output: one JSON line `{ leader, server, grandchild }` on stdout once the server answered `pids`.
 * Plain JavaScript on purpose: it is spawned with Node 20, which cannot run TypeScript.
 */
import { McpClient } from '../../dist/index.js';
import { fixtureServerConfig } from '../../dist/testing/index.js';

const HOW = ['exit', 'throw', 'rejection', 'wait', 'handle-sigterm'];
const [how = '', mode = 'shell'] = process.argv.slice(2);
if (!HOW.includes(how) || (mode !== 'shell' && mode !== 'direct')) {
  process.stderr.write(`host-process: usage: host-process.mjs <${HOW.join('|')}> [shell|direct]\n`);
  process.exit(2);
}

// Installed before the server starts, as a host would; it must keep signal-exit from acting.
let sigterms = 0;
if (how === 'handle-sigterm') {
  process.on('SIGTERM', () => {
    sigterms++;
    if (sigterms === 1) process.stdout.write(`${JSON.stringify({ handled: sigterms })}\n`);
    else process.exit(3);
  });
}

const client = new McpClient(fixtureServerConfig({ name: 'host-exit', forkGrandchild: true, viaShell: mode === 'shell' }));
const result = await client.callTool('pids', {}, { timeoutMs: 15_000 });
const first = result.content[0];
if (result.isError || first?.type !== 'text') {
  process.stderr.write(`host-process: the pids tool failed: ${JSON.stringify(result)}\n`);
  process.exit(4);
}
const pids = JSON.parse(first.text);
// Pipes are written synchronously on Linux, so this line is out before any exit below.
process.stdout.write(`${JSON.stringify({ leader: client.status().pid, server: pids.pid, grandchild: pids.grandchildPid })}\n`);

// The immediate endings wait for a line on stdin, so the test can first check that the whole tree
// is up; the others wait for the test's signal.
if (how === 'exit' || how === 'throw' || how === 'rejection') {
  await new Promise((resolve) => process.stdin.once('data', resolve));
  process.stdin.pause();
}

switch (how) {
  case 'exit':
    process.exit(0);
    break;
  case 'throw':
    setTimeout(() => {
      throw new Error('host-process: an uncaught exception, on purpose');
    }, 0);
    break;
  case 'rejection':
    void Promise.reject(new Error('host-process: an unhandled rejection, on purpose'));
    break;
  case 'wait':
  case 'handle-sigterm':
    // The server's pipes keep the loop alive already; this makes the wait explicit.
    setInterval(() => {}, 1 << 30);
    break;
}
