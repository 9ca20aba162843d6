import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ErrorCode } from '../../../src/errors/codes.js';
import { isMcpActorsError } from '../../../src/errors/mcp-actors-error.js';
import { LinkedCallSignal } from '../../../src/registry/call-signal.js';
import { MAX_TIMER_MS, timeoutReason, withDeadline } from '../../../src/timing/deadline.js';

/** A promise and its settlers, for work that ends when the test says. */
function later<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: Error) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

async function codeOf(pending: Promise<unknown>): Promise<unknown> {
  const error = await pending.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  return isMcpActorsError(error) ? error.code : error;
}

describe('withDeadline, the one deadline', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves with the work’s value and clears its timer and its listener', async () => {
    const controller = new AbortController();
    const work = later<string>();
    const waiting = withDeadline(work.promise, { ms: 1_000, signal: controller.signal });
    expect(vi.getTimerCount()).toBe(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    work.resolve('answer');
    await expect(waiting).resolves.toBe('answer');
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('passes the work’s own rejection on as it came, and clears its timer', async () => {
    const work = later<string>();
    const waiting = withDeadline(work.promise, { ms: 1_000 });
    const failure = new Error('the server went away');
    work.reject(failure);
    await expect(waiting).rejects.toBe(failure);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('resolves with the value of work that answers just before the deadline', async () => {
    const work = later<string>();
    const waiting = withDeadline(work.promise, { ms: 250 });
    await vi.advanceTimersByTimeAsync(249);
    work.resolve('in time');
    await expect(waiting).resolves.toBe('in time');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects REQUEST_TIMEOUT when the time runs out, and a late answer changes nothing', async () => {
    const slow = later<string>();
    const timedOut = withDeadline(slow.promise, { ms: 250, what: 'tools/list' });
    const caught = timedOut.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(250);
    slow.resolve('too late');
    const error = await caught;
    expect(isMcpActorsError(error) && error.code).toBe(ErrorCode.REQUEST_TIMEOUT);
    expect(error instanceof Error && error.message).toContain('tools/list got no answer within 250 ms');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects CANCELLED with the abort’s reason as cause, at once, and leaves no listener on the signal', async () => {
    const controller = new AbortController();
    const waiting = withDeadline(later<string>().promise, { ms: 1_000, signal: controller.signal });
    const reason = new Error('user pressed stop');
    controller.abort(reason);
    const error: unknown = await waiting.catch((caught: unknown) => caught);
    expect(isMcpActorsError(error) && error.code).toBe(ErrorCode.CANCELLED);
    expect(error instanceof Error && error.cause).toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('never runs work given as a function when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort('gone');
    const work = vi.fn(() => Promise.resolve('ran'));
    await expect(codeOf(withDeadline(work, { ms: 1_000, signal: controller.signal }))).resolves.toBe(ErrorCode.CANCELLED);
    expect(work).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('holds one listener on a signal however many wait on it, and none once they settled', async () => {
    const controller = new AbortController();
    const works = Array.from({ length: 16 }, () => later<number>());
    const waits = works.map((work) => withDeadline(work.promise, { ms: 1_000, signal: controller.signal }));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    works.forEach((work, n) => work.resolve(n));
    await expect(Promise.all(waits)).resolves.toHaveLength(16);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('ends with what onTimeout and onAbort return, and removes its listener from a call signal', async () => {
    const call = new LinkedCallSignal();
    const listen = vi.spyOn(call, 'onAbort');
    const timedOut = withDeadline(later<string>().promise, {
      ms: 10,
      signal: call,
      onTimeout: () => 'timed out',
      onAbort: () => 'cancelled',
    });
    await vi.advanceTimersByTimeAsync(10);
    await expect(timedOut).resolves.toBe('timed out');
    // Its listener was removed: a later abort reaches no wait.
    const onAbort = vi.fn(() => 'cancelled');
    const cancelled = withDeadline(later<string>().promise, { signal: call, onAbort });
    expect(listen).toHaveBeenCalledTimes(2);
    call.abort('stop');
    await expect(cancelled).resolves.toBe('cancelled');
    expect(onAbort).toHaveBeenCalledTimes(1);
    expect(onAbort).toHaveBeenCalledWith('stop');
  });

  it('arms no timer for a deadline a timer cannot hold (setTimeout would fire at once)', async () => {
    const work = later<string>();
    const waiting = withDeadline(work.promise, { ms: MAX_TIMER_MS + 1 });
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10);
    work.resolve('in time');
    await expect(waiting).resolves.toBe('in time');
  });

  it('keeps the process alive for its timer unless told it is a grace wait (unref)', async () => {
    // Real timers, spied on and restored here: a spy laid over the fake timers outlived them, and
    // left a later test file in the same worker (sharing its module cache) with timers that never fire.
    vi.useRealTimers();
    const armed = vi.spyOn(globalThis, 'setTimeout');
    try {
      const held = withDeadline(later<string>().promise, { ms: 5, onTimeout: () => 'limit' });
      const grace = withDeadline(later<string>().promise, { ms: 5, onTimeout: () => 'went on', unref: true });
      const [limit, graceTimer] = armed.mock.results.map((result) => result.value as NodeJS.Timeout);
      expect(limit?.hasRef()).toBe(true);
      expect(graceTimer?.hasRef()).toBe(false);
      await expect(held).resolves.toBe('limit');
      await expect(grace).resolves.toBe('went on');
    } finally {
      armed.mockRestore();
    }
  });

  it('says why a timed-out call’s signal was aborted as a TimeoutError', () => {
    const reason = timeoutReason(50);
    expect(reason.name).toBe('TimeoutError');
    expect(reason.message).toBe('the call timed out after 50 ms');
  });
});
