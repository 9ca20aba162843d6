/**
 * A call as the SDK's request signal (`LinkedCallSignal.requestSignal`): what `Protocol.request`
 * reads of it behaves as an `AbortSignal`'s does while the call runs, and nothing fires once the
 * call has settled (so a settled call is never cancelled on the wire).
 */
import { describe, expect, it } from 'vitest';
import { LinkedCallSignal } from '../../../src/registry/call-signal.js';

describe('requestSignal', () => {
  it('answers aborted, reason and throwIfAborted as an AbortSignal does', () => {
    const call = new LinkedCallSignal();
    const signal = call.requestSignal;
    expect(signal.aborted).toBe(false);
    expect(() => signal.throwIfAborted()).not.toThrow();
    const reason = new Error('no longer needed');
    call.abort(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(() => signal.throwIfAborted()).toThrow(reason);
  });

  it('calls abort listeners (functions, handleEvent objects, onabort) once with an abort event, and removed ones never', () => {
    const call = new LinkedCallSignal();
    const signal = call.requestSignal;
    const seen: string[] = [];
    const first = (event: Event): void => void seen.push(`first:${event.type}`);
    const removed = (): void => void seen.push('removed');
    signal.addEventListener('abort', first);
    signal.addEventListener('abort', { handleEvent: (event: Event) => void seen.push(`object:${event.type}`) });
    signal.addEventListener('abort', removed);
    signal.removeEventListener('abort', removed);
    signal.onabort = (event) => void seen.push(`onabort:${event.type}`);
    call.abort('stop');
    call.abort('again');
    expect([...seen].sort()).toEqual(['first:abort', 'object:abort', 'onabort:abort']);
  });

  it('drops its listeners when the call settles: an abort after unlink() reaches none', () => {
    const source = new AbortController();
    const call = new LinkedCallSignal([source.signal]);
    let fired = 0;
    call.requestSignal.addEventListener('abort', () => void (fired += 1));
    call.unlink();
    source.abort(new Error('the caller is done'));
    expect(fired).toBe(0);
    expect(call.requestSignal.aborted).toBe(false);
  });

  it('follows its linked source while the call runs', () => {
    const source = new AbortController();
    const call = new LinkedCallSignal([source.signal]);
    let fired = 0;
    call.requestSignal.addEventListener('abort', () => void (fired += 1));
    source.abort(new Error('cancelled by the caller'));
    expect(fired).toBe(1);
    expect(call.requestSignal.reason).toBe(source.signal.reason);
  });
});
