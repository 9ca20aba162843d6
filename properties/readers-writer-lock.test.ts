import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReadersWriterLock, type LockMode } from '../src/sandbox/readers-writer-lock.js';

describe('ReadersWriterLock', () => {
  it('never lets a writer overlap anyone, lets readers overlap, and grants every request', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ mode: fc.constantFrom<LockMode>('read', 'write'), hold: fc.integer({ min: 0, max: 3 }) }), { maxLength: 30 }),
        async (requests) => {
          const lock = new ReadersWriterLock();
          let readers = 0;
          let writers = 0;
          let maxReaders = 0;
          const order: number[] = [];
          await Promise.all(
            requests.map(async ({ mode, hold }, index) => {
              const release = await lock.acquire(mode);
              order.push(index);
              if (mode === 'write') {
                expect(readers).toBe(0);
                expect(writers).toBe(0);
                writers += 1;
              } else {
                expect(writers).toBe(0);
                readers += 1;
                maxReaders = Math.max(maxReaders, readers);
              }
              for (let i = 0; i < hold; i += 1) await Promise.resolve();
              if (mode === 'write') writers -= 1;
              else readers -= 1;
              release();
            }),
          );
          expect(order).toHaveLength(requests.length);
          // Fairness: a writer is granted only after every request that came before it.
          requests.forEach(({ mode }, index) => {
            if (mode === 'write') {
              const position = order.indexOf(index);
              expect(order.slice(0, position).sort((a, b) => a - b)).toEqual([...Array(index).keys()]);
            }
          });
          expect(lock.state).toEqual({ readers: 0, writer: false, waiting: 0 });
        },
      ),
    );
  });

  it('runs readers together', async () => {
    const lock = new ReadersWriterLock();
    const a = await lock.acquire('read');
    const b = await lock.acquire('read');
    expect(lock.state.readers).toBe(2);
    a();
    b();
  });

  it('gives up waiting when the signal aborts, and lets the next in line through', async () => {
    const lock = new ReadersWriterLock();
    const release = await lock.acquire('write');
    const controller = new AbortController();
    const waiting = lock.acquire('write', controller.signal);
    const reader = lock.acquire('read');
    controller.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    release();
    (await reader)();
    expect(lock.state).toEqual({ readers: 0, writer: false, waiting: 0 });
  });

  it('upgrades a reader once the other readers are done, holding back new ones until it gives back', async () => {
    const lock = new ReadersWriterLock();
    const a = await lock.acquire('read');
    const b = await lock.acquire('read');
    let upgraded = false;
    const upgrade = lock.upgrade().then((giveBack) => {
      upgraded = true;
      return giveBack;
    });
    let cGranted = false;
    const c = lock.acquire('read').then((release) => {
      cGranted = true;
      return release;
    });
    await Promise.resolve();
    expect(upgraded).toBe(false);
    b();
    const giveBack = await upgrade;
    await Promise.resolve();
    expect(cGranted).toBe(false);
    giveBack();
    (await c)();
    a();
    expect(lock.state).toEqual({ readers: 0, writer: false, waiting: 0 });
  });

  it('lets readers that share one upgrade go ahead together, without waiting for each other', async () => {
    const lock = new ReadersWriterLock();
    const a = await lock.acquire('read');
    const b = await lock.acquire('read');
    let sharers = 1;
    const upgrade = lock.upgrade(() => sharers);
    sharers = 2;
    lock.recheck();
    const giveBack = await upgrade;
    giveBack();
    a();
    b();
    expect(lock.state).toEqual({ readers: 0, writer: false, waiting: 0 });
  });
});
