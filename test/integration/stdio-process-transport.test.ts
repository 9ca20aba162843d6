import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describeExit, StdioProcessTransport, type StdioProcessOptions } from '../../src/server/stdio-process-transport.js';
import { serverEnvironment } from '../../src/process/server-environment.js';
import { groupMembers, isProcessAlive } from '../../src/process/process-table.js';
import { isMcpActorsError } from '../../src/errors/index.js';
import { rejection } from '../support/rejection.js';
import { fixtureServerPath } from '../../src/testing/fixture.js';

/**
 * A line-oriented JSON-RPC echo server, no SDK: announces itself with a `ready` notification,
 * answers every request with its params, and exits when stdin ends.
 *   --garbage        a non-JSON line first
 *   --ignore-eof     stay alive when stdin ends
 *   --ignore-sigterm stay alive on SIGTERM
 *   --read-after=MS  start reading stdin only after MS (backpressure)
 *   --never-read     never read stdin
 * Methods: `env` answers with two variables, `big` with a result of `params.bytes` bytes.
 */
const ECHO_SERVER = String.raw`
import { createInterface } from 'node:readline';
const flags = process.argv.slice(2);
const has = (flag) => flags.includes(flag);
const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');
if (has('--ignore-sigterm')) process.on('SIGTERM', () => {});
if (has('--garbage')) process.stdout.write('this is not json\n');
function serve() {
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const message = JSON.parse(line);
    if (!('id' in message)) return;
    if (message.method === 'env') {
      send({ jsonrpc: '2.0', id: message.id, result: { secret: process.env.MCP_ACTORS_TEST_SECRET ?? null, configured: process.env.MCP_ACTORS_CONFIGURED ?? null } });
    } else if (message.method === 'big') {
      process.stdout.write('{"jsonrpc":"2.0","id":' + message.id + ',"result":{"s":"' + 'x'.repeat(message.params.bytes) + '"}}\n');
    } else {
      send({ jsonrpc: '2.0', id: message.id, result: { echo: message.params ?? null } });
    }
  });
  lines.on('close', () => { if (!has('--ignore-eof')) process.exit(0); });
}
const readAfter = flags.find((flag) => flag.startsWith('--read-after='));
if (has('--never-read')) process.stdin.pause();
else if (readAfter) setTimeout(serve, Number(readAfter.split('=')[1]));
else serve();
if (has('--ignore-eof') || has('--never-read')) setInterval(() => {}, 1 << 30);
send({ jsonrpc: '2.0', method: 'ready' });
`;

let dir: string;
let echoServer: string;
const transports: StdioProcessTransport[] = [];
const pgids: number[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-actors-stdio-'));
  echoServer = join(dir, 'echo-server.mjs');
  writeFileSync(echoServer, ECHO_SERVER);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await Promise.all(transports.splice(0).map((transport) => transport.close()));
  for (const pgid of pgids.splice(0)) expect(groupMembers(pgid)).toEqual([]);
});

function options(overrides: Partial<StdioProcessOptions> = {}): StdioProcessOptions {
  return {
    command: process.execPath,
    args: [echoServer],
    env: serverEnvironment({}),
    shutdownTimeoutMs: 400,
    maxMessageBytes: 64 * 1024,
    stderrLines: 5,
    serverName: 'test',
    ...overrides,
  };
}

interface Harness {
  readonly transport: StdioProcessTransport;
  readonly messages: JSONRPCMessage[];
  readonly errors: Error[];
  readonly closes: () => number;
  /** Resolves with the first message (already received or to come) that matches. */
  next(predicate: (message: JSONRPCMessage) => boolean, timeoutMs?: number): Promise<JSONRPCMessage>;
}

function harness(overrides: Partial<StdioProcessOptions> = {}): Harness {
  const transport = new StdioProcessTransport(options(overrides));
  transports.push(transport);
  const messages: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  const waiters: { predicate: (message: JSONRPCMessage) => boolean; resolve: (message: JSONRPCMessage) => void }[] = [];
  let closes = 0;
  transport.onmessage = (message) => {
    messages.push(message);
    for (const waiter of waiters.filter((w) => w.predicate(message))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(message);
    }
  };
  transport.onerror = (error) => errors.push(error);
  transport.onclose = () => {
    closes += 1;
  };
  return {
    transport,
    messages,
    errors,
    closes: () => closes,
    next(predicate, timeoutMs = 5_000) {
      const seen = messages.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no matching message arrived')), timeoutMs);
        waiters.push({
          predicate,
          resolve: (message) => {
            clearTimeout(timer);
            resolve(message);
          },
        });
      });
    },
  };
}

const isReady = (message: JSONRPCMessage): boolean => 'method' in message && message.method === 'ready';
const isAnswerTo =
  (id: number) =>
  (message: JSONRPCMessage): boolean =>
    'id' in message && message.id === id && 'result' in message;

/** `close()`, and how long it took (for the stop sequence's steps, with wide bounds). */
async function timedClose(h: Harness): Promise<number> {
  const started = Date.now();
  await h.transport.close();
  return Date.now() - started;
}

async function startReady(h: Harness): Promise<number> {
  await h.transport.start();
  const pid = h.transport.pid;
  if (pid === undefined) throw new Error('no pid after start()');
  pgids.push(pid);
  await h.next(isReady);
  return pid;
}

async function until(condition: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('StdioProcessTransport: spawning', () => {
  it('rejects a missing command with SPAWN_FAILED naming the command and the cwd, and nothing goes unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      const h = harness({ command: 'mcp-actors-no-such-command' });
      const error = await rejection(h.transport.start());
      expect(error.code).toBe('SPAWN_FAILED');
      expect(error.message).toContain('"mcp-actors-no-such-command"');
      expect(error.message).toContain(process.cwd());
      expect(error.message).toMatch(/not found.*PATH/);
      expect((error.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
      expect(h.transport.pid).toBeUndefined();
      expect((await h.transport.exited).reason).toBe(error);
      // start() is idempotent: the same failure, no second spawn.
      expect(await rejection(h.transport.start())).toBe(error);
      await h.transport.close();
      expect(h.closes()).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('says when the working directory is the problem', async () => {
    const h = harness({ cwd: join(dir, 'missing') });
    const error = await rejection(h.transport.start());
    expect(error.code).toBe('SPAWN_FAILED');
    expect(error.message).toContain(join(dir, 'missing'));
    expect(error.message).toContain('cwd');
  });

  it('says when the command is not executable', async () => {
    const script = join(dir, 'not-executable.sh');
    writeFileSync(script, '#!/bin/sh\n');
    chmodSync(script, 0o644);
    const error = await rejection(harness({ command: script }).transport.start());
    expect(error.code).toBe('SPAWN_FAILED');
    expect(error.message).toContain('EACCES');
    expect(error.message).toContain('chmod');
  });

  it('passes only the allowlist and the configured variables to the server', async () => {
    process.env.MCP_ACTORS_TEST_SECRET = 'hunter2';
    try {
      const h = harness({ env: serverEnvironment({ MCP_ACTORS_CONFIGURED: 'yes' }) });
      await startReady(h);
      await h.transport.send({ jsonrpc: '2.0', id: 1, method: 'env' });
      const answer = await h.next(isAnswerTo(1));
      expect(answer).toMatchObject({ result: { secret: null, configured: 'yes' } });
    } finally {
      delete process.env.MCP_ACTORS_TEST_SECRET;
    }
  });
});

describe('StdioProcessTransport: messages', () => {
  it('round-trips JSON-RPC messages, many at once', async () => {
    const h = harness();
    await startReady(h);
    const ids = Array.from({ length: 200 }, (_, i) => i + 1);
    await Promise.all(ids.map((id) => h.transport.send({ jsonrpc: '2.0', id, method: 'echo', params: { n: id } })));
    const answers = await Promise.all(ids.map((id) => h.next(isAnswerTo(id))));
    expect(answers.map((answer) => ('result' in answer ? answer.result : undefined))).toEqual(ids.map((n) => ({ echo: { n } })));
    expect(h.errors).toEqual([]);
  });

  it('writes the messages sent in one tick in one go (writev), in order, and each later tick afresh', async () => {
    const h = harness();
    await startReady(h);
    // Counted at the socket, for the writes that carry this test's marker only.
    const writes: number[] = [];
    const proto = Socket.prototype as unknown as {
      _write: (chunk: unknown, encoding: string, cb: () => void) => void;
      _writev: (chunks: { chunk: unknown }[], cb: () => void) => void;
    };
    const { _write: write, _writev: writev } = proto;
    const marked = (chunk: unknown): number => (String(chunk).match(/"burst"/g) ?? []).length;
    proto._write = function (chunk, encoding, cb) {
      if (marked(chunk) > 0) writes.push(marked(chunk));
      write.call(this, chunk, encoding, cb);
    };
    proto._writev = function (chunks, cb) {
      const count = chunks.reduce((sum, { chunk }) => sum + marked(chunk), 0);
      if (count > 0) writes.push(count);
      writev.call(this, chunks, cb);
    };
    try {
      const ids = Array.from({ length: 50 }, (_, i) => i + 1);
      await Promise.all(ids.map((id) => h.transport.send({ jsonrpc: '2.0', id, method: 'burst', params: { n: id } })));
      const answers = await Promise.all(ids.map((id) => h.next(isAnswerTo(id))));
      expect(answers.map((answer) => ('result' in answer ? answer.result : undefined))).toEqual(ids.map((n) => ({ echo: { n } })));
      expect(writes).toEqual([50]);
      // A send in a later tick is not held back for a batch that never comes.
      await h.transport.send({ jsonrpc: '2.0', id: 99, method: 'burst' });
      await h.next(isAnswerTo(99));
      expect(writes).toEqual([50, 1]);
    } finally {
      proto._write = write;
      proto._writev = writev;
    }
    expect(h.errors).toEqual([]);
  });

  it('counts a garbage line, reports it as not fatal, and goes on', async () => {
    const h = harness({ args: [echoServer, '--garbage'] });
    await startReady(h);
    await h.transport.send({ jsonrpc: '2.0', id: 7, method: 'echo' });
    await h.next(isAnswerTo(7));
    expect(h.transport.diagnostics()).toMatchObject({ nonJsonLines: 1, lastNonJsonLine: 'this is not json' });
    expect(h.errors).toHaveLength(1);
    expect(h.errors[0]).toMatchObject({ code: 'PROTOCOL_ERROR', details: { fatal: false } });
    expect(h.closes()).toBe(0);
  });

  it('closes the connection on a message over maxMessageBytes and says how to raise it', async () => {
    const h = harness({ maxMessageBytes: 10_000 });
    const pid = await startReady(h);
    await h.transport.send({ jsonrpc: '2.0', id: 1, method: 'big', params: { bytes: 5_000 } });
    await h.next(isAnswerTo(1));
    await h.transport.send({ jsonrpc: '2.0', id: 2, method: 'big', params: { bytes: 50_000 } });
    const exit = await h.transport.exited;
    expect(exit.reason?.code).toBe('MESSAGE_TOO_LARGE');
    expect(exit.reason?.message).toBe(
      'server "test" sent a message over 10000 bytes; the connection was closed. Raise maxMessageBytes if the server really sends messages this large',
    );
    expect(exit.requested).toBe(false);
    // A contract breach: the group is SIGKILLed at once, with no clean stop sequence.
    expect(exit.stopStep).toBe('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    expect(h.errors.map((error) => (isMcpActorsError(error) ? error.code : undefined))).toEqual(['MESSAGE_TOO_LARGE']);
    expect(h.messages.some(isAnswerTo(2))).toBe(false);
    expect(h.closes()).toBe(1);
    expect(groupMembers(pid)).toEqual([]);
    expect(describeExit(exit, 'test')).toMatch(/^server "test" sent a message over 10000 bytes.*; the process was killed by SIGKILL$/);
  });

  it('waits for the pipe to drain when the server reads slowly', async () => {
    const h = harness({ args: [echoServer, '--read-after=300'], maxMessageBytes: 4 * 1024 * 1024 });
    await startReady(h);
    const started = Date.now();
    await h.transport.send({ jsonrpc: '2.0', id: 1, method: 'echo', params: { s: 'y'.repeat(1024 * 1024) } });
    // 1 MiB does not fit a 64 KiB pipe: send() resolves only once the server reads.
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    await h.next(isAnswerTo(1));
  });

  it('lets every write made while the pipe is full share one drain wait (no listener a write, no warning)', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const h = harness({ args: [echoServer, '--read-after=300'], maxMessageBytes: 4 * 1024 * 1024 });
      await startReady(h);
      // 40 writes of 64 KiB each queue behind a full pipe; one 'drain' listener per write would pass ten.
      const sends = Array.from({ length: 40 }, (_, i) =>
        h.transport.send({ jsonrpc: '2.0', id: 100 + i, method: 'echo', params: { s: 'q'.repeat(64 * 1024) } }),
      );
      await Promise.all(sends);
      for (let i = 0; i < 40; i += 1) await h.next(isAnswerTo(100 + i));
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('fails a send that waits on a full pipe when the server dies, and later sends at once', async () => {
    const h = harness({ args: [echoServer, '--never-read'] });
    const pid = await startReady(h);
    const pending = h.transport.send({ jsonrpc: '2.0', id: 1, method: 'echo', params: { s: 'z'.repeat(1024 * 1024) } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.kill(pid, 'SIGKILL');
    expect((await rejection(pending)).code).toBe('CONNECTION_LOST');
    await h.transport.exited;
    expect((await rejection(h.transport.send({ jsonrpc: '2.0', id: 2, method: 'echo' }))).code).toBe('CONNECTION_LOST');
  });

  it('refuses to send before start()', async () => {
    const h = harness();
    expect((await rejection(h.transport.send({ jsonrpc: '2.0', id: 1, method: 'echo' }))).code).toBe('NOT_CONNECTED');
  });
});

describe('StdioProcessTransport: crashes', () => {
  it('reports a server that exits 1 once, with its stderr tail', async () => {
    const script = 'for (let i = 1; i <= 8; i++) console.error("line " + i); console.error("Error: bad token"); process.exit(1)';
    const h = harness({ args: ['-e', script] });
    await h.transport.start();
    const pid = h.transport.pid as number;
    pgids.push(pid);
    const exit = await h.transport.exited;
    expect(exit).toMatchObject({ code: 1, signal: null, normal: false, requested: false });
    expect(exit.stderrTail).toEqual(['line 5', 'line 6', 'line 7', 'line 8', 'Error: bad token']);
    expect(h.closes()).toBe(1);
    expect(h.errors).toHaveLength(1);
    expect(h.errors[0]).toMatchObject({ code: 'SERVER_CRASHED' });
    expect(describeExit(exit, 'test')).toBe('server "test" exited with code 1: line 5\nline 6\nline 7\nline 8\nError: bad token');
    expect(h.transport.exit).toBe(exit);
    await h.transport.close();
    expect(h.closes()).toBe(1);
  });

  it('kills the grandchild of a forking launcher when the launcher is SIGKILLed', async () => {
    const grandchild = `${JSON.stringify(process.execPath)} -e 'setInterval(() => {}, 1 << 30)'`;
    const h = harness({
      command: '/bin/sh',
      // The grandchild runs in the background holding the shell's stdout; `exit $?` keeps the
      // shell as the leader instead of exec'ing the server.
      args: ['-c', `${grandchild} & ${JSON.stringify(process.execPath)} ${JSON.stringify(echoServer)}; exit $?`],
    });
    const pid = await startReady(h);
    await until(() => groupMembers(pid).length === 3);
    const members = groupMembers(pid);

    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    const exit = await h.transport.exited;
    const closedAfterMs = Date.now() - killedAt;

    expect(exit).toMatchObject({ code: null, signal: 'SIGKILL', requested: false });
    expect(h.closes()).toBe(1);
    expect(closedAfterMs).toBeLessThan(1_500);
    for (const member of members) expect(isProcessAlive(member)).toBe(false);
    expect(groupMembers(pid)).toEqual([]);
    expect(describeExit(exit, 'test')).toBe('server "test" was killed by SIGKILL (it wrote nothing to stderr)');
  });

  const fixture = fixtureServerPath();
  it('fails the SDK call in flight at once when a launched server is SIGKILLed', async () => {
    const env: Record<string, string> = {};
    if (process.env.MCP_ACTORS_PID_LOG) env.MCP_ACTORS_PID_LOG = process.env.MCP_ACTORS_PID_LOG;
    const transport = new StdioProcessTransport(
      options({
        command: '/bin/sh',
        args: ['-c', '"$0" "$@"; exit $?', process.execPath, fixture, '--fork-grandchild', '--hang-on-call'],
        env: serverEnvironment(env),
      }),
    );
    transports.push(transport);
    const client = new Client({ name: 'test', version: '0.0.0' });
    await client.connect(transport);
    const pid = transport.pid as number;
    pgids.push(pid);
    // The shell, the server and its grandchild (forked before the server answers initialize).
    // --hang-on-call hangs every call, so the members are read from /proc, not from the `pids` tool.
    const members = groupMembers(pid);
    expect(members).toHaveLength(3);

    const call = client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    await expect(call).rejects.toThrow(/Connection closed/);
    expect(Date.now() - killedAt).toBeLessThan(1_500);
    for (const member of members) expect(isProcessAlive(member)).toBe(false);
  });
});

describe('StdioProcessTransport: close()', () => {
  it('stops a well-behaved server by closing stdin, with no signal', async () => {
    // A roomy budget: on a loaded machine the stdin step must not lose the race to SIGTERM.
    const h = harness({ shutdownTimeoutMs: 4_000 });
    const pid = await startReady(h);
    const tookMs = await timedClose(h);
    const exit = h.transport.exit;
    expect(exit).toMatchObject({ code: 0, signal: null, normal: true, requested: true, stopStep: 'stdin-closed' });
    expect(tookMs).toBeLessThan(2_000);
    expect(h.closes()).toBe(1);
    expect(h.errors).toEqual([]);
    expect(groupMembers(pid)).toEqual([]);
    expect(describeExit(exit!, 'test')).toBe('server "test" was stopped and exited with code 0');
  });

  it('sends SIGTERM after half the budget to a server that ignores stdin closing', async () => {
    const h = harness({ args: [echoServer, '--ignore-eof'] });
    const pid = await startReady(h);
    const tookMs = await timedClose(h);
    expect(h.transport.exit).toMatchObject({ code: null, signal: 'SIGTERM', requested: true, stopStep: 'SIGTERM' });
    expect(tookMs).toBeGreaterThanOrEqual(190);
    expect(tookMs).toBeLessThan(1_500);
    expect(groupMembers(pid)).toEqual([]);
  });

  it('kill() SIGKILLs the whole group at once, without the clean stop sequence', async () => {
    const h = harness({ args: [echoServer, '--ignore-eof', '--ignore-sigterm'], shutdownTimeoutMs: 60_000 });
    const pid = await startReady(h);
    await h.transport.kill();
    // With the clean sequence this would have waited half of the 60 s budget before SIGTERM.
    expect(h.transport.exit).toMatchObject({ code: null, signal: 'SIGKILL', requested: true, stopStep: 'SIGKILL' });
    expect(h.closes()).toBe(1);
    expect(groupMembers(pid)).toEqual([]);
  });

  it('SIGKILLs a server that ignores stdin closing and SIGTERM once the budget is spent', async () => {
    const h = harness({ args: [echoServer, '--ignore-eof', '--ignore-sigterm'] });
    const pid = await startReady(h);
    const tookMs = await timedClose(h);
    expect(h.transport.exit).toMatchObject({ code: null, signal: 'SIGKILL', requested: true, stopStep: 'SIGKILL' });
    expect(tookMs).toBeGreaterThanOrEqual(390);
    expect(tookMs).toBeLessThan(2_000);
    expect(h.closes()).toBe(1);
    expect(isProcessAlive(pid)).toBe(false);
    expect(groupMembers(pid)).toEqual([]);
  });

  it('shares one promise between concurrent calls and fires onclose once', async () => {
    const h = harness();
    await startReady(h);
    const first = h.transport.close();
    expect(h.transport.close()).toBe(first);
    await Promise.all([first, h.transport.close()]);
    expect(h.closes()).toBe(1);
  });

  it('resolves before start() and after exit, firing onclose once', async () => {
    const never = harness();
    await never.transport.close();
    expect(never.closes()).toBe(1);
    expect((await never.transport.exited).requested).toBe(true);
    expect((await rejection(never.transport.start())).code).toBe('NOT_CONNECTED');

    const crashed = harness({ args: ['-e', 'process.exit(3)'] });
    await crashed.transport.start();
    pgids.push(crashed.transport.pid as number);
    const exit = await crashed.transport.exited;
    await crashed.transport.close();
    expect(exit).toMatchObject({ code: 3, requested: false });
    expect(crashed.closes()).toBe(1);
  });

  it('stops a server that is closed while it is still starting', async () => {
    const h = harness();
    const starting = h.transport.start();
    const closing = h.transport.close();
    await starting;
    pgids.push(h.transport.pid as number);
    await closing;
    expect(h.transport.exit?.requested).toBe(true);
    expect(h.closes()).toBe(1);
  });
});
