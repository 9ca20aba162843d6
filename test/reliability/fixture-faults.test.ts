/**
 * The fault matrix, fixture side: one test per fixture switch, each asserting the state reached,
 * the error code surfaced, that every call settles exactly once and that no process is left. Each
 * row records what it observed for docs/reliability.md (see support/record.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/mcp-client.js';
import type { McpServerConfig } from '../../src/config/server-config.js';
import { fixtureServerConfig, type FixtureOptions } from '../../src/testing/fixture.js';
import { spawnedProcesses, waitForServerState } from '../../src/testing/index.js';
import { expectAllGone } from '../support/processes.js';
import { echo, FAST, fourAnswers, reaches, recovered, throughListChangedFlood, type FaultCase } from './support/fault-case.js';
import { record, Settlements } from './support/record.js';

interface Case extends FaultCase {
  readonly pids: Set<number>;
}
const cases: Case[] = [];

function fixture(options: FixtureOptions & { viaShell?: boolean }, extra: Partial<McpServerConfig> = {}): Case {
  const client = new McpClient(fixtureServerConfig({ name: 'matrix', ...options, extra: { ...FAST, ...extra } }));
  const pids = new Set<number>();
  client.state$.subscribe(() => {
    const pid = client.status().pid;
    if (pid !== undefined) pids.add(pid);
  });
  const made = { client, calls: new Settlements(), pids };
  cases.push(made);
  return made;
}

afterEach(async () => {
  for (const { client, calls, pids } of cases.splice(0)) {
    await client.dispose();
    expect(calls.allOnce(), `calls settled: ${calls.codes().join(', ')}`).toBe(true);
    await expectAllGone([...pids], [...pids]);
  }
  expect(spawnedProcesses().groups).toEqual([]);
});

describe('the fixture fault matrix', () => {
  for (const [id, crashMode] of [
    ['crash-exit', 'exit'],
    ['crash-sigkill', 'sigkill'],
  ] as const) {
    it(`${id}: the call in flight fails CONNECTION_LOST, the server restarts at once and answers`, async () => {
      const c = fixture({ crashAfter: 1, crashMode });
      expect(await echo(c)).toBe('ok');
      expect(await echo(c)).toBe('CONNECTION_LOST');
      const since = Date.now();
      await waitForServerState(c.client, 'RUNNING', 15_000);
      expect(c.client.status().lastError?.code).toBe('SERVER_CRASHED');
      const ms = await recovered(c, since);
      expect(c.client.status().restarts).toBe(1);
      record(
        id,
        `CONNECTION_LOST, RUNNING again, restarts 1, lastExit ${JSON.stringify({ code: c.client.status().lastExit?.code, signal: c.client.status().lastExit?.signal })}`,
        ms,
      );
    });
  }

  it('exit-zero: a transient server that exits 0 goes to STOPPED and starts lazily', async () => {
    const c = fixture({ exitZeroAfter: 1 }, { restart: 'transient' });
    expect(await echo(c)).toBe('ok');
    expect(await echo(c)).toBe('CONNECTION_LOST');
    const since = Date.now();
    await waitForServerState(c.client, 'STOPPED', 15_000);
    const ms = await recovered(c, since);
    record('exit-zero', 'CONNECTION_LOST, STOPPED, next call started it lazily', ms);
  });

  it('exit-on-start: ERROR after 1 + maxRestarts spawns, with the exit code and stderr', async () => {
    const c = fixture({ exitOnStart: 3 }, { maxRestarts: 2 });
    const starts: string[] = [];
    c.client.state$.subscribe((s) => starts.push(s));
    expect(await c.calls.track(c.client.start({ timeoutMs: 15_000 }))).toBe('SERVER_IN_ERROR');
    expect(c.client.state).toBe('ERROR');
    expect(c.client.status().restarts).toBe(2);
    expect(c.client.status().lastExit).toMatchObject({ code: 3, signal: null });
    expect(c.client.status().lastExit?.stderrTail.join('\n')).toContain('exiting on start with code 3');
    record('exit-on-start', 'SERVER_IN_ERROR, ERROR after 3 spawns, lastExit code 3 with its stderr line');
  });

  it('hang-on-initialize: START_TIMEOUT, killed at once, ERROR', async () => {
    const c = fixture({ hangOnInitialize: true }, { startTimeoutMs: 500, maxRestarts: 0, shutdownTimeoutMs: 20_000 });
    const since = Date.now();
    expect(await c.calls.track(c.client.start({ timeoutMs: 15_000 }))).toBe('SERVER_IN_ERROR');
    const ms = Date.now() - since;
    expect(c.client.status().lastError?.code).toBe('START_TIMEOUT');
    // With the clean stop sequence this would have waited for half of the 20 s shutdown budget.
    expect(ms).toBeLessThan(10_000);
    record('hang-on-initialize', `START_TIMEOUT, SIGKILL at once, ERROR after ${Math.round(ms)} ms (startTimeoutMs 500)`);
  });

  for (const { id, says, options, timeoutMs, observed } of [
    {
      id: 'hang-on-call',
      says: 'REQUEST_TIMEOUT, the server stays RUNNING',
      options: { hangOnCall: true },
      timeoutMs: 300,
      observed: 'REQUEST_TIMEOUT at the deadline, RUNNING',
    },
    {
      id: 'endless-progress',
      says: 'REQUEST_TIMEOUT at the deadline',
      options: { endlessProgress: true },
      timeoutMs: 400,
      observed: 'REQUEST_TIMEOUT, RUNNING',
    },
  ]) {
    it(`${id}: ${says}`, async () => {
      const c = fixture(options);
      await c.calls.track(c.client.start());
      expect(await echo(c, 'x', timeoutMs)).toBe('REQUEST_TIMEOUT');
      expect(c.client.state).toBe('RUNNING');
      record(id, observed);
    });
  }

  it('slow-start: STARTING until ready, then answered', async () => {
    const c = fixture({ startupDelayMs: 300 });
    const since = Date.now();
    const answer = echo(c);
    expect(c.client.state).toBe('STARTING');
    expect(await answer).toBe('ok');
    record('slow-start', 'STARTING, then answered', Date.now() - since);
  });

  it('slow-calls: answered late, nothing lost', async () => {
    const c = fixture({ slowCallsMs: 200 });
    expect(await Promise.all([echo(c, 'a'), echo(c, 'b'), echo(c, 'c')])).toEqual(['ok', 'ok', 'ok']);
    record('slow-calls', 'three concurrent calls answered');
  });

  it('garbage-stdout: counted, not fatal', async () => {
    const c = fixture({ garbageStdout: true });
    expect(await echo(c)).toBe('ok');
    expect(await echo(c)).toBe('ok');
    expect(c.client.status().diagnostics?.nonJsonLines).toBeGreaterThanOrEqual(2);
    expect(c.client.status().restarts).toBe(0);
    record('garbage-stdout', `answered, ${c.client.status().diagnostics?.nonJsonLines} non-JSON lines counted, no restart`);
  });

  it('oversized-message: MESSAGE_TOO_LARGE, SIGKILL at once, restarted', async () => {
    const c = fixture({ oversizedMessage: 50_000 }, { maxMessageBytes: 10_000, shutdownTimeoutMs: 20_000 });
    await c.calls.track(c.client.start());
    expect(await echo(c)).toBe('CONNECTION_LOST');
    const since = Date.now();
    expect(c.client.status().lastError?.code).toBe('MESSAGE_TOO_LARGE');
    await waitForServerState(c.client, 'RUNNING', 15_000);
    const ms = Date.now() - since;
    expect(c.client.status().lastExit?.signal).toBe('SIGKILL');
    record('oversized-message', 'CONNECTION_LOST, MESSAGE_TOO_LARGE, killed by SIGKILL, RUNNING again', ms);
  });

  it('half-frame-exit: CONNECTION_LOST, restarted, answered', async () => {
    const c = fixture({ halfFrameExit: true });
    expect(await echo(c)).toBe('CONNECTION_LOST');
    const since = Date.now();
    await waitForServerState(c.client, 'RUNNING', 15_000);
    // The restarted fixture does the same on its first call: the next call fails the same way.
    expect(await echo(c)).toBe('CONNECTION_LOST');
    record('half-frame-exit', 'CONNECTION_LOST each time, restarted each time', Date.now() - since);
  });

  it('stderr-flood: answered, the stderr tail stays bounded', async () => {
    const c = fixture({ stderrFlood: true }, { stderrLines: 20 });
    expect(await echo(c)).toBe('ok');
    expect(c.client.status().diagnostics?.stderrTail.length).toBeLessThanOrEqual(20);
    record('stderr-flood', `answered, stderr tail ${c.client.status().diagnostics?.stderrTail.length} lines`);
  });

  it('ignore-sigterm: stop() escalates to SIGKILL', async () => {
    const c = fixture({ ignoreSigterm: true }, { shutdownTimeoutMs: 400 });
    expect(await echo(c)).toBe('ok');
    await c.client.stop();
    expect(c.client.state).toBe('STOPPED');
    record('ignore-sigterm', 'STOPPED after SIGKILL, group empty');
  });

  it('fork-grandchild: stop() leaves no grandchild', async () => {
    const c = fixture({ forkGrandchild: true, viaShell: true });
    const result = await c.client.callTool('pids', {});
    const { grandchildPid, pid } = JSON.parse((result.content[0] as { text: string }).text) as { grandchildPid: number; pid: number };
    await c.client.stop();
    await expectAllGone([grandchildPid, pid]);
    record('fork-grandchild', 'STOPPED, leader, server and grandchild gone');
  });

  it('stop-reading-stdin: later calls time out, each settles once, stop() leaves nothing', async () => {
    const c = fixture({ stopReadingAfter: 1 }, { shutdownTimeoutMs: 400 });
    expect(await echo(c)).toBe('ok');
    expect(c.client.state).toBe('RUNNING');
    const later = await Promise.all(
      [1, 2, 3].map(() => c.calls.track(c.client.callTool('echo', { message: 'x'.repeat(100_000) }, { timeoutMs: 400 }))),
    );
    expect(new Set(later)).toEqual(new Set(['REQUEST_TIMEOUT']));
    await c.client.stop();
    record('stop-reading-stdin', 'REQUEST_TIMEOUT for each later call, STOPPED');
  });

  it('list-changed-storm: listed and answered', async () => {
    const c = fixture({ listChangedStorm: 200 });
    const tools = await c.client.listTools();
    expect(tools.some((t) => t.name === 'echo')).toBe(true);
    expect(await echo(c)).toBe('ok');
    record('list-changed-storm', `${tools.length} tools listed, answered, RUNNING`);
  });

  it('list-changed-flood: one tools/list at a time, each applied', async () => {
    record('list-changed-flood', await throughListChangedFlood(fixture({ listChangedFlood: true }).client));
  });

  it('lying-annotations: listed read-only, and the write happens anyway', async () => {
    const c = fixture({ lyingAnnotations: true });
    const tools = await c.client.listTools();
    expect(tools.find((t) => t.name === 'write_then_fail')?.annotations?.readOnlyHint).toBe(true);
    record('lying-annotations', "every tool listed readOnlyHint: true (detection is the sandbox's: read_sneaky test)");
  });

  it('protocol-version: ERROR without retries, naming both versions', async () => {
    const c = fixture({ protocolVersion: '1999-01-01' });
    expect(await c.calls.track(c.client.start({ timeoutMs: 15_000 }))).toBe('SERVER_IN_ERROR');
    expect(c.client.status().lastError?.code).toBe('HANDSHAKE_FAILED');
    expect(c.client.status().lastError?.message).toContain('1999-01-01');
    expect(c.client.status().restarts).toBe(0);
    record('protocol-version', 'HANDSHAKE_FAILED naming 1999-01-01 and ours, ERROR, no restart');
  });

  for (const [id, options] of [
    ['duplicate-responses', { duplicateResponses: true }],
    ['unknown-response-ids', { unknownResponseIds: true }],
  ] as const) {
    it(`${id}: every call settles once with its own answer`, async () => {
      const c = fixture(options);
      expect(await fourAnswers(c.client)).toEqual(['a', 'b', 'c', 'd']);
      expect(c.client.state).toBe('RUNNING');
      record(id, 'four concurrent calls, each its own answer once, RUNNING');
    });
  }

  it('ping-hang: PING_TIMEOUT, SIGKILL at once, restarted', async () => {
    const c = fixture({ pingHang: true }, { pingIntervalMs: 200, shutdownTimeoutMs: 20_000 });
    expect(await echo(c)).toBe('ok');
    await reaches(c.client, 'STARTING');
    const since = Date.now();
    expect(c.client.status().lastError?.code).toBe('PING_TIMEOUT');
    await waitForServerState(c.client, 'RUNNING', 15_000);
    expect(c.client.status().restarts).toBe(1);
    record('ping-hang', 'PING_TIMEOUT, killed by SIGKILL, RUNNING again', Date.now() - since);
  });

  it('spawn-enoent: SPAWN_FAILED, ERROR at once, no retry', async () => {
    const client = new McpClient({ name: 'missing', command: '/no/such/command', ...FAST });
    const calls = new Settlements();
    cases.push({ client, calls, pids: new Set() });
    expect(await calls.track(client.start())).toBe('SERVER_IN_ERROR');
    expect(client.status().lastError?.code).toBe('SPAWN_FAILED');
    expect(client.status().restarts).toBe(0);
    record('spawn-enoent', 'SPAWN_FAILED (ENOENT), ERROR, no retry');
  });
});
