/**
 * Many calls in flight on one long-lived signal (a caller's, an actor's lifetime) put ONE abort
 * listener on it, not one each: Node warns past ten listeners, and each is one more thing to remove.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { CallSet, linkCallSignal } from '../../../src/registry/call-signal.js';

describe('calls following one source signal', () => {
  it('16 calls in flight hold one listener on the shared signal, and none once they settle', () => {
    const caller = new AbortController();
    const calls = Array.from({ length: 16 }, () => linkCallSignal(caller.signal));
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    for (const call of calls.slice(0, 15)) call.unlink();
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    calls[15]!.unlink();
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('aborting the shared signal cancels every call still open, and none that settled', () => {
    const caller = new AbortController();
    const set = new CallSet();
    const open = Array.from({ length: 12 }, () => set.open(caller.signal));
    const settled = open.splice(0, 4);
    for (const call of settled) call.unlink();
    const reasons: unknown[] = [];
    for (const call of open) call.onAbort((reason) => reasons.push(reason));
    const reason = new Error('caller gave up');
    caller.abort(reason);
    expect(reasons).toEqual(open.map(() => reason));
    expect(open.every((call) => call.aborted && call.signal.aborted)).toBe(true);
    expect(settled.some((call) => call.aborted)).toBe(false);
    for (const call of open) call.unlink(); // each call settles (cancelled) and leaves the set
    expect(set.size).toBe(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('a new call after all earlier ones settled links afresh and is still cancelled', () => {
    const caller = new AbortController();
    linkCallSignal(caller.signal).unlink();
    const later = linkCallSignal(caller.signal);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    caller.abort('stop');
    expect(later.aborted).toBe(true);
    expect(later.reason).toBe('stop');
  });

  it('prints no MaxListenersExceededWarning for 50 calls in flight on one signal', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const caller = new AbortController();
      const calls = Array.from({ length: 50 }, () => linkCallSignal(caller.signal));
      await new Promise((resolve) => setImmediate(resolve));
      for (const call of calls) call.unlink();
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});
