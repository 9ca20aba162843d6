import { describe, expect, it, vi } from 'vitest';
import type { McpClient } from '../../../src/client/mcp-client.js';
import type { ServerState } from '../../../src/server/server-states.js';
import { useFakeClients } from '../../support/fake-clients.js';
import { rejection } from '../../support/rejection.js';

const fake = useFakeClients();
const { client, flush, flushed, started } = fake;

function textOf(result: { content: unknown }): string {
  return (result.content as { text: string }[])[0]!.text;
}

/** An echo call, time run on until it is answered: the text it was answered with. */
const echoed = async (c: McpClient, message: string): Promise<string> => textOf(await flushed(c.callTool('echo', { message })));

describe('McpClient over the server machine (fake connections)', () => {
  it('starts a stopped server on the first call and answers it', async () => {
    const c = client();
    expect(c.state).toBe('STOPPED');
    const answer = c.callTool('echo', { message: 'hi' });
    expect(c.state).toBe('STARTING');
    await flush();
    expect(textOf(await answer)).toBe('hi');
    expect(c.state).toBe('RUNNING');
    expect(fake.servers.spawns).toBe(1);
  });

  it('runs every call made while STARTING once the server is up, with one spawn', async () => {
    const c = client();
    const answers = [1, 2, 3].map((n) => c.callTool('echo', { message: `m${n}` }));
    await flush();
    expect((await Promise.all(answers)).map(textOf)).toEqual(['m1', 'm2', 'm3']);
    expect(fake.servers.spawns).toBe(1);
  });

  it('keeps a waiting call waiting through failed starts and answers it after the restart', async () => {
    fake.servers.script.push('fail', 'fail');
    const c = client();
    const answer = c.callTool('echo', { message: 'late' });
    await flush();
    expect(c.state).toBe('STARTING');
    expect(c.status().restarts).toBe(1);
    expect(c.status().nextAttemptAt).toBe(Date.now() + 100);
    await flush(100);
    expect(c.status().restarts).toBe(2);
    await flush(200);
    expect(textOf(await answer)).toBe('late');
    expect(fake.servers.spawns).toBe(3);
  });

  it('goes to ERROR after more than maxRestarts restarts within periodMs and fails the waiting call', async () => {
    fake.servers.script.push(...Array<'fail'>(20).fill('fail'));
    const c = client({ maxRestarts: 2, periodMs: 60_000 });
    const answer = rejection(c.callTool('echo', { message: 'x' }));
    await flush(5_000);
    const error = await answer;
    expect(error.code).toBe('SERVER_IN_ERROR');
    expect(error.message).toContain('fake exited on start');
    expect(c.state).toBe('ERROR');
    expect(fake.servers.spawns).toBe(3);
    const later = await rejection(c.callTool('echo', { message: 'y' }));
    expect(later.code).toBe('SERVER_IN_ERROR');
    expect(fake.servers.spawns).toBe(3);
  });

  it('leaves ERROR only through start() or reconnect()', async () => {
    fake.servers.script.push('fail', 'fail');
    const c = client({ maxRestarts: 1 });
    const failed = rejection(c.start());
    await flush(1_000);
    expect((await failed).code).toBe('SERVER_IN_ERROR');
    await started(c);
    expect(c.state).toBe('RUNNING');
    expect(c.status().restarts).toBe(0);
  });

  it('kills a server whose handshake hangs at startTimeoutMs and starts it again', async () => {
    fake.servers.script.push('hang');
    const c = client();
    const answer = c.callTool('echo', { message: 'after timeout' });
    await flush(999);
    expect(fake.servers.spawns).toBe(1);
    await flush(1);
    expect(c.status().lastError?.code).toBe('START_TIMEOUT');
    expect(fake.servers.liveCount).toBe(0);
    await flush(100);
    expect(textOf(await answer)).toBe('after timeout');
    expect(fake.servers.spawns).toBe(2);
    expect(fake.servers.liveCount).toBe(1);
  });

  it('does not retry a server that cannot be spawned at all', async () => {
    fake.servers.script.push('spawn-fail');
    const c = client();
    const error = rejection(c.callTool('echo', { message: 'x' }));
    await flush();
    expect((await error).code).toBe('SERVER_IN_ERROR');
    expect((await error).details.reason).toBe('SPAWN_FAILED');
    expect(fake.servers.spawns).toBe(1);
  });

  it('fails the call in flight when the server crashes, restarts it, and the next call succeeds', async () => {
    const c = client();
    await started(c);
    const slow = rejection(c.callTool('sleep', { ms: 5_000 }));
    await flush();
    expect(fake.servers.crash()).toBe(true);
    await flush();
    const lost = await slow;
    expect(lost.code).toBe('CONNECTION_LOST');
    expect(lost.message).toContain('fake server crashed');
    // The first restart after a crash of a RUNNING server is immediate (as OTP does).
    expect(c.state).toBe('RUNNING');
    expect(await echoed(c, 'back')).toBe('back');
    expect(c.status().restarts).toBe(1);
    // The crash is still what status() shows, with the server RUNNING again.
    expect(c.status().lastError?.message).toContain('fake server crashed');
    // The second crash in the window backs off from initialMs.
    expect(fake.servers.crash()).toBe(true);
    await flush();
    expect(c.state).toBe('STARTING');
    expect(c.status().nextAttemptAt).toBe(Date.now() + 100);
    await flush(100);
    expect(c.state).toBe('RUNNING');
    expect(c.status().restarts).toBe(2);
  });

  it('does not restart a transient server after a normal exit, but starts it lazily on the next call', async () => {
    const c = client({ restart: 'transient' });
    await started(c);
    fake.servers.crash(true);
    await flush(1_000);
    expect(c.state).toBe('STOPPED');
    expect(fake.servers.spawns).toBe(1);
    expect(await echoed(c, 'lazy')).toBe('lazy');
    expect(fake.servers.spawns).toBe(2);
  });

  for (const { says, restart, waitMs, state, spawns } of [
    { says: 'restarts a transient server after an abnormal exit', restart: 'transient', waitMs: 100, state: 'RUNNING', spawns: 2 },
    {
      says: 'never restarts a temporary server: a crash leaves it in ERROR',
      restart: 'temporary',
      waitMs: 1_000,
      state: 'ERROR',
      spawns: 1,
    },
  ] as const) {
    it(says, async () => {
      const c = client({ restart });
      await started(c);
      fake.servers.crash(false);
      await flush(waitMs);
      expect(c.state).toBe(state);
      expect(fake.servers.spawns).toBe(spawns);
    });
  }

  it('stops after idleStopMs with no call in flight, and a call in flight keeps it running', async () => {
    const c = client({ idleStopMs: 1_000 });
    const slow = c.callTool('sleep', { ms: 3_000 });
    await flush(2_000);
    expect(c.state).toBe('RUNNING');
    await flush(1_000);
    await slow;
    await flush(999);
    expect(c.state).toBe('RUNNING');
    await flush(1);
    expect(c.state).toBe('STOPPED');
    expect(fake.servers.liveCount).toBe(0);
    expect(await echoed(c, 'woken')).toBe('woken');
  });

  it('restarts the idle timer with every call', async () => {
    const c = client({ idleStopMs: 1_000 });
    for (let i = 0; i < 3; i += 1) {
      await flushed(c.callTool('echo', { message: String(i) }), 600);
    }
    expect(c.state).toBe('RUNNING');
    await flush(1_000);
    expect(c.state).toBe('STOPPED');
  });

  it('fails a call waiting for a start when stop() is called', async () => {
    fake.servers.script.push('hang');
    const c = client();
    const waiting = rejection(c.callTool('echo', { message: 'x' }));
    await flush(10);
    await flushed(c.stop());
    expect((await waiting).code).toBe('SERVER_STOPPED');
    expect(c.state).toBe('STOPPED');
    expect(fake.servers.liveCount).toBe(0);
  });

  it('fails a call that waits past its own deadline with REQUEST_TIMEOUT', async () => {
    fake.servers.script.push(...Array<'fail'>(10).fill('fail'));
    const c = client({ maxRestarts: 10 });
    const waiting = rejection(c.callTool('echo', { message: 'x' }, { timeoutMs: 500 }));
    await flush(500);
    const error = await waiting;
    expect(error.code).toBe('REQUEST_TIMEOUT');
    expect(error.message).toContain('STARTING');
  });

  it('times out a slow call and cancels an aborted one, telling the two apart', async () => {
    const c = client();
    const slow = rejection(c.callTool('sleep', { ms: 5_000 }, { timeoutMs: 1_000 }));
    await flush(1_000);
    expect((await slow).code).toBe('REQUEST_TIMEOUT');
    const controller = new AbortController();
    const aborted = rejection(c.callTool('sleep', { ms: 5_000 }, { signal: controller.signal }));
    await flush(10);
    controller.abort();
    await flush();
    expect((await aborted).code).toBe('CANCELLED');
    expect(c.state).toBe('RUNNING');
  });

  it('caches the tool list until reconnect() clears it', async () => {
    const c = client();
    const tools = await flushed(c.listTools());
    expect(tools.map((t) => t.name)).toEqual(['echo', 'sleep']);
    const second = c.listTools();
    await flush();
    expect(await second).toBe(tools);
    await flushed(c.reconnect());
    const third = c.listTools();
    await flush();
    expect(await third).not.toBe(tools);
    expect(fake.servers.spawns).toBe(2);
    expect(fake.servers.liveCount).toBe(1);
  });

  it('closes a process that is still starting when stop() is called', async () => {
    fake.servers.script.push('hang');
    const c = client();
    void c.start().catch(() => undefined);
    await flush(10);
    expect(fake.servers.liveCount).toBe(1);
    await flushed(c.stop());
    expect(fake.servers.liveCount).toBe(0);
    expect(c.state).toBe('STOPPED');
  });

  it('publishes every state change on state$', async () => {
    const c = client();
    const seen: ServerState[] = [];
    const subscription = c.state$.subscribe((state) => seen.push(state));
    await started(c);
    await flushed(c.stop());
    subscription.unsubscribe();
    expect(seen).toEqual(['STOPPED', 'STARTING', 'RUNNING', 'STOPPING', 'STOPPED']);
  });

  it('rejects bad arguments with INVALID_ARGUMENT before starting anything', async () => {
    const c = client();
    await expect(c.callTool('', {})).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(c.callTool('echo', [] as unknown as Record<string, unknown>)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(c.callTool('echo', {}, { timeoutMs: -1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(fake.servers.spawns).toBe(0);
  });

  it('refuses use after dispose with NOT_CONNECTED', async () => {
    const c = client();
    await flushed(c.dispose());
    await expect(c.callTool('echo', {})).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
  });

  it('does not let a call restart a server that stop() is stopping; stop() resolves and the call fails', async () => {
    const c = client();
    await started(c);
    const stopped = c.stop();
    const call = rejection(c.callTool('echo', { message: 'too late' }));
    await flush();
    await stopped;
    expect((await call).code).toBe('SERVER_STOPPED');
    expect(c.state).toBe('STOPPED');
    expect(fake.servers.liveCount).toBe(0);
    expect(await echoed(c, 'after the stop')).toBe('after the stop');
  });

  it('lets a call start a server that is stopping because it was idle', async () => {
    const c = client({ idleStopMs: 100 });
    await flushed(c.callTool('echo', { message: 'a' }));
    await vi.advanceTimersByTimeAsync(100);
    expect(await echoed(c, 'b')).toBe('b');
  });

  it('keeps the restart count across a lazy start; start() begins afresh', async () => {
    fake.servers.script.push('fail', 'ok');
    const c = client({ restart: 'transient' });
    await flushed(c.start(), 100);
    expect(c.status().restarts).toBe(1);
    fake.servers.crash(true);
    await flush();
    expect(c.state).toBe('STOPPED');
    const lazy = c.callTool('echo', { message: 'lazy' });
    await flush();
    await lazy;
    // A clean exit of a transient server is not a restart, and neither is the start on use after it
    // (OTP): the count is kept as it was.
    expect(c.status().restarts).toBe(1);
    await flushed(c.stop());
    await flushed(c.start());
    expect(c.status().restarts).toBe(0);
  });

  it('serves concurrent listTools from one listing, each within its own deadline and signal', async () => {
    const c = client();
    await started(c);
    fake.servers.listDelayMs = 1_000;
    const controller = new AbortController();
    const impatient = rejection(c.listTools({ signal: controller.signal }));
    const hasty = rejection(c.listTools({ timeoutMs: 200 }));
    const patient = c.listTools();
    await flush(100);
    controller.abort();
    await flush(100);
    expect((await impatient).code).toBe('CANCELLED');
    expect((await hasty).code).toBe('REQUEST_TIMEOUT');
    await flush(1_000);
    expect((await patient).map((t) => t.name)).toEqual(['echo', 'sleep']);
  });
});
