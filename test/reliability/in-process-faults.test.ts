/**
 * The fault matrix, in-process side: every switch of the in-process fixture, through the
 * supervised server (`McpClient`, the actor the runtime pools), each test asserting the state
 * reached, the error code surfaced, that every call settles exactly once, and that no fixture
 * server is left running (the in-process "no process left").
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../src/config/server-config.js';
import {
  inProcessFixture,
  openHandles,
  waitForServerState,
  type InProcessFixture,
  type InProcessFixtureOptions,
} from '../../src/testing/index.js';
import { echo, FAST, fourAnswers, reaches, recovered, throughListChangedFlood, type FaultCase } from './support/fault-case.js';
import { record, Settlements } from './support/record.js';

interface Case extends FaultCase {
  readonly fixture: InProcessFixture;
}
const cases: Case[] = [];

function fixture(options: InProcessFixtureOptions, extra: Partial<McpServerConfig> = {}): Case {
  const f = inProcessFixture(options);
  const made = { fixture: f, client: f.client({ name: 'in-process', ...FAST, ...extra }), calls: new Settlements() };
  cases.push(made);
  return made;
}

afterEach(async () => {
  for (const { fixture: f, client, calls } of cases.splice(0)) {
    await client.dispose();
    expect(calls.allOnce(), `calls settled: ${calls.codes().join(', ')}`).toBe(true);
    // ignore-sigterm leaves its server running by design (the runtime abandoned it); its test checks that, then ends it.
    expect(f.running, 'fixture servers still running after dispose()').toBe(0);
    expect(f.grandchildren).toBe(0);
  }
});

const id = (name: string) => `inprocess-${name}`;

describe('the in-process fixture fault matrix', () => {
  for (const [name, crashMode] of [
    ['crash-exit', 'exit'],
    ['crash-sigkill', 'sigkill'],
  ] as const) {
    it(`${name}: the transport fails and closes; the call fails CONNECTION_LOST, the server restarts and answers`, async () => {
      const c = fixture({ crashAfter: 1, crashMode });
      expect(await echo(c)).toBe('ok');
      expect(await echo(c)).toBe('CONNECTION_LOST');
      const since = Date.now();
      await waitForServerState(c.client, 'RUNNING', 10_000);
      const error = c.client.status().lastError;
      expect(error?.code).toBe('SERVER_CRASHED');
      expect(error?.message).toContain(crashMode === 'sigkill' ? 'SIGKILL' : 'exited with code 1');
      const ms = await recovered(c, since);
      expect(c.client.status().restarts).toBe(1);
      expect(c.fixture.started).toBe(2);
      expect(c.client.status().lastExit).toBeUndefined();
      record(
        id(name),
        `CONNECTION_LOST, SERVER_CRASHED (${crashMode === 'sigkill' ? 'killed by SIGKILL' : 'exit code 1'}), RUNNING again, restarts 1`,
        ms,
      );
    });
  }

  it('exit-zero: a transient server whose transport closes cleanly goes to STOPPED and starts lazily', async () => {
    const c = fixture({ exitZeroAfter: 1 }, { restart: 'transient' });
    expect(await echo(c)).toBe('ok');
    expect(await echo(c)).toBe('CONNECTION_LOST');
    const since = Date.now();
    await waitForServerState(c.client, 'STOPPED', 10_000);
    expect(c.fixture.started).toBe(1);
    const ms = await recovered(c, since);
    expect(c.fixture.started).toBe(2);
    record(id('exit-zero'), 'CONNECTION_LOST, STOPPED (a clean close is a normal end), next call started it lazily', ms);
  });

  it('exit-on-start: ERROR after 1 + maxRestarts starts, HANDSHAKE_FAILED saying the transport closed', async () => {
    const c = fixture({ exitOnStart: 3 }, { maxRestarts: 2 });
    expect(await c.calls.track(c.client.start({ timeoutMs: 10_000 }))).toBe('SERVER_IN_ERROR');
    expect(c.client.state).toBe('ERROR');
    expect(c.client.status().restarts).toBe(2);
    expect(c.fixture.started).toBe(3);
    const error = c.client.status().lastError;
    expect(error?.code).toBe('HANDSHAKE_FAILED');
    expect(error?.message).toContain('closed before the MCP initialize handshake finished (the in-process fixture exited with code 3)');
    record(id('exit-on-start'), 'SERVER_IN_ERROR, ERROR after 3 starts, HANDSHAKE_FAILED naming the exit');
  });

  it('hang-on-initialize: START_TIMEOUT, the transport is closed at once, ERROR', async () => {
    const c = fixture({ hangOnInitialize: true }, { startTimeoutMs: 300, maxRestarts: 0, shutdownTimeoutMs: 20_000 });
    const since = Date.now();
    expect(await c.calls.track(c.client.start({ timeoutMs: 10_000 }))).toBe('SERVER_IN_ERROR');
    const ms = Date.now() - since;
    expect(c.client.status().lastError?.code).toBe('START_TIMEOUT');
    expect(c.fixture.running).toBe(0);
    // The clean stop would have given it half of the 20 s budget.
    expect(ms).toBeLessThan(10_000);
    record(id('hang-on-initialize'), `START_TIMEOUT, closed at once, ERROR after ${ms} ms (startTimeoutMs 300)`);
  });

  for (const { name, says, options, timeoutMs, observed } of [
    {
      name: 'hang-on-call',
      says: 'REQUEST_TIMEOUT, the server stays RUNNING',
      options: { hangOnCall: true },
      timeoutMs: 200,
      observed: 'REQUEST_TIMEOUT at the deadline, RUNNING',
    },
    {
      name: 'endless-progress',
      says: 'REQUEST_TIMEOUT at the deadline',
      options: { endlessProgress: true },
      timeoutMs: 300,
      observed: 'REQUEST_TIMEOUT, RUNNING',
    },
  ]) {
    it(`${name}: ${says}`, async () => {
      const c = fixture(options);
      await c.calls.track(c.client.start());
      expect(await echo(c, 'x', timeoutMs)).toBe('REQUEST_TIMEOUT');
      expect(c.client.state).toBe('RUNNING');
      record(id(name), observed);
    });
  }

  it('slow-start: STARTING until ready, then answered', async () => {
    const c = fixture({ startupDelayMs: 200 });
    const since = Date.now();
    const answer = echo(c);
    expect(c.client.state).toBe('STARTING');
    expect(await answer).toBe('ok');
    expect(Date.now() - since).toBeGreaterThanOrEqual(150);
    record(id('slow-start'), 'STARTING, then answered', Date.now() - since);
  });

  it('slow-calls: answered late, nothing lost', async () => {
    const c = fixture({ slowCallsMs: 100 });
    expect(await Promise.all([echo(c, 'a'), echo(c, 'b'), echo(c, 'c')])).toEqual(['ok', 'ok', 'ok']);
    record(id('slow-calls'), 'three concurrent calls answered');
  });

  it('garbage-stdout: a message that is not JSON-RPC is counted and dropped, calls answered', async () => {
    const c = fixture({ garbageStdout: true });
    expect(await echo(c)).toBe('ok');
    expect(await echo(c)).toBe('ok');
    const diagnostics = c.client.status().diagnostics;
    expect(diagnostics?.nonJsonLines).toBeGreaterThanOrEqual(2);
    expect(diagnostics?.lastNonJsonLine).toContain('this is not json');
    expect(c.client.status().restarts).toBe(0);
    record(id('garbage-stdout'), `answered, ${diagnostics?.nonJsonLines} non-JSON-RPC messages counted and dropped, no restart`);
  });

  it('oversized-message: delivered (no wire, no cap in-process), calls answered', async () => {
    const c = fixture({ oversizedMessage: 2_000_000 }, { maxMessageBytes: 10_000 });
    expect(await echo(c)).toBe('ok');
    expect(c.client.state).toBe('RUNNING');
    expect(c.client.status().restarts).toBe(0);
    record(id('oversized-message'), 'a 2 MB notification delivered, answered, RUNNING (maxMessageBytes is a stdio limit)');
  });

  it('half-frame-exit: half a response then a crash: CONNECTION_LOST, restarted', async () => {
    const c = fixture({ halfFrameExit: true });
    expect(await echo(c)).toBe('CONNECTION_LOST');
    const since = Date.now();
    await waitForServerState(c.client, 'RUNNING', 10_000);
    expect(c.client.status().lastError?.code).toBe('SERVER_CRASHED');
    // The restarted fixture does the same on its first call.
    expect(await echo(c)).toBe('CONNECTION_LOST');
    record(
      id('half-frame-exit'),
      'CONNECTION_LOST each time, the half response counted as not JSON-RPC, restarted each time',
      Date.now() - since,
    );
  });

  it('stderr-flood: a flood of log notifications does not starve calls', async () => {
    const c = fixture({ stderrFlood: true, stderrLines: 50 });
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await echo(c, `m${i}`, 5_000));
    expect(new Set(answers)).toEqual(new Set(['ok']));
    expect(c.client.state).toBe('RUNNING');
    record(id('stderr-flood'), '20 calls answered in turn under the flood, RUNNING');
  });

  it('ignore-sigterm: close() never finishes; stop() gives up after shutdownTimeoutMs and reaches STOPPED', async () => {
    const c = fixture({ ignoreSigterm: true }, { shutdownTimeoutMs: 300 });
    expect(await echo(c)).toBe('ok');
    const since = Date.now();
    await c.client.stop();
    const ms = Date.now() - since;
    expect(c.client.state).toBe('STOPPED');
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(5_000);
    // Abandoned, as a process that ignores SIGTERM is SIGKILLed: in-process nothing can kill it.
    expect(c.fixture.running).toBe(1);
    await c.fixture.dispose();
    expect(c.fixture.running).toBe(0);
    record(id('ignore-sigterm'), 'STOPPED after the 300 ms budget (the transport abandoned)', ms);
  });

  it("fork-grandchild: stop() closes the transport, and the server's timer ends with it", async () => {
    const before = openHandles().Timeout ?? 0;
    const c = fixture({ forkGrandchild: true });
    expect(await echo(c)).toBe('ok');
    expect(c.fixture.grandchildren).toBe(1);
    await c.client.stop();
    expect(c.fixture.grandchildren).toBe(0);
    expect(c.fixture.running).toBe(0);
    expect(openHandles().Timeout ?? 0).toBeLessThanOrEqual(before);
    record(id('fork-grandchild'), 'STOPPED, the grandchild timer cleared');
  });

  it('stop-reading-stdin: later calls time out, each settles once, stop() leaves nothing', async () => {
    const c = fixture({ stopReadingAfter: 1 });
    expect(await echo(c)).toBe('ok');
    const later = await Promise.all([1, 2, 3].map((n) => echo(c, `late ${n}`, 300)));
    expect(new Set(later)).toEqual(new Set(['REQUEST_TIMEOUT']));
    expect(c.client.state).toBe('RUNNING');
    await c.client.stop();
    expect(c.fixture.running).toBe(0);
    record(id('stop-reading-stdin'), 'REQUEST_TIMEOUT for each later call, STOPPED');
  });

  it('list-changed-storm: listed and answered', async () => {
    const c = fixture({ listChangedStorm: 200 });
    const tools = await c.client.listTools();
    expect(tools.some((t) => t.name === 'echo')).toBe(true);
    expect(await echo(c)).toBe('ok');
    record(id('list-changed-storm'), `${tools.length} tools listed, answered, RUNNING`);
  });

  it('list-changed-flood: one tools/list at a time, each applied', async () => {
    record(id('list-changed-flood'), await throughListChangedFlood(fixture({ listChangedFlood: true }).client));
  });

  it('lying-annotations: listed read-only, and the write happens anyway', async () => {
    const c = fixture({ lyingAnnotations: true });
    const tools = await c.client.listTools();
    expect(tools.find((t) => t.name === 'write_then_fail')?.annotations?.readOnlyHint).toBe(true);
    record(id('lying-annotations'), 'every tool listed readOnlyHint: true');
  });

  it('protocol-version: ERROR without retries, naming both versions', async () => {
    const c = fixture({ protocolVersion: '1999-01-01' });
    expect(await c.calls.track(c.client.start({ timeoutMs: 10_000 }))).toBe('SERVER_IN_ERROR');
    const error = c.client.status().lastError;
    expect(error?.code).toBe('HANDSHAKE_FAILED');
    expect(error?.message).toContain('1999-01-01');
    expect(error?.details).toMatchObject({ serverVersion: '1999-01-01' });
    expect(c.client.status().restarts).toBe(0);
    expect(c.fixture.started).toBe(1);
    record(id('protocol-version'), 'HANDSHAKE_FAILED naming 1999-01-01 and ours, ERROR, no restart');
  });

  for (const [name, options] of [
    ['duplicate-responses', { duplicateResponses: true }],
    ['unknown-response-ids', { unknownResponseIds: true }],
  ] as const) {
    it(`${name}: every call settles once with its own answer`, async () => {
      const c = fixture(options);
      expect(await fourAnswers(c.client)).toEqual(['a', 'b', 'c', 'd']);
      expect(c.client.state).toBe('RUNNING');
      record(id(name), 'four concurrent calls, each its own answer once, RUNNING');
    });
  }

  it('ping-hang: PING_TIMEOUT, closed at once, restarted', async () => {
    const c = fixture({ pingHang: true }, { pingIntervalMs: 150, shutdownTimeoutMs: 20_000 });
    expect(await echo(c)).toBe('ok');
    await reaches(c.client, 'STARTING');
    const since = Date.now();
    expect(c.client.status().lastError?.code).toBe('PING_TIMEOUT');
    await waitForServerState(c.client, 'RUNNING', 10_000);
    const ms = Date.now() - since;
    expect(ms).toBeLessThan(10_000);
    expect(c.client.status().restarts).toBe(1);
    expect(c.fixture.started).toBe(2);
    record(id('ping-hang'), 'PING_TIMEOUT, closed at once (no 20 s budget), RUNNING again', ms);
  });
});
