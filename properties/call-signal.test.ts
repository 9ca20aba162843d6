/**
 * The law of a call signal: it aborts exactly when a linked source aborts before the call
 * settles (with that source's reason), never after `unlink()`, and it leaves no listener behind.
 */
import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CallSet, linkCallSignal } from '../src/registry/call-signal.js';

type Step = { kind: 'abort'; source: number } | { kind: 'unlink' };

describe('linkCallSignal', () => {
  it('aborts with the first source aborted before unlink, and never after; no listener stays', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        fc.array(
          fc.oneof(
            fc.record({ kind: fc.constant('abort' as const), source: fc.integer({ min: 0, max: 3 }) }),
            fc.constant<Step>({ kind: 'unlink' }),
          ),
          {
            maxLength: 8,
          },
        ),
        (count, preAborted, steps) => {
          const sources = Array.from({ length: count }, (_, i) => {
            const controller = new AbortController();
            if (preAborted[i]) controller.abort(`pre ${i}`);
            return controller;
          });
          const call = linkCallSignal(...sources.map((s) => s.signal), undefined);
          let expected: unknown = undefined;
          let aborted = false;
          const first = sources.findIndex((s) => s.signal.aborted);
          if (first >= 0) {
            aborted = true;
            expected = `pre ${first}`;
          }
          let unlinked = false;
          for (const step of steps) {
            if (step.kind === 'unlink') {
              call.unlink();
              unlinked = true;
            } else if (step.source < count) {
              const source = sources[step.source]!;
              if (!source.signal.aborted) {
                source.abort(`now ${step.source}`);
                if (!aborted && !unlinked) {
                  aborted = true;
                  expected = `now ${step.source}`;
                }
              }
            }
          }
          expect(call.signal.aborted).toBe(aborted);
          if (aborted) expect(call.signal.reason).toBe(expected);
          call.unlink();
          for (const source of sources) expect(getEventListeners(source.signal, 'abort')).toHaveLength(0);
        },
      ),
    );
  });

  it('CallSet: cancelAll aborts the calls open now and later, never a settled one, and keeps none', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('open', 'settle', 'cancel'), { maxLength: 20 }), (steps) => {
        const calls = new CallSet();
        const caller = new AbortController();
        const open: ReturnType<CallSet['open']>[] = [];
        const settled: ReturnType<CallSet['open']>[] = [];
        let cancelled = false;
        for (const step of steps) {
          if (step === 'open') open.push(calls.open(caller.signal));
          else if (step === 'settle' && open.length > 0) {
            const call = open.shift()!;
            const wasAborted = call.signal.aborted;
            call.unlink();
            settled.push(call);
            expect(call.signal.aborted).toBe(wasAborted);
          } else if (step === 'cancel') {
            calls.cancelAll('stop');
            cancelled = true;
          }
          for (const call of open) expect(call.signal.aborted).toBe(cancelled);
        }
        for (const call of open) call.unlink();
        expect(calls.size).toBe(0);
        expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
      }),
    );
  });
});
