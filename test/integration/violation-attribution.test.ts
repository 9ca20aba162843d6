/**
 * Whom a change in a sandbox is charged to (issue 15): "a violation is attributed to the call that
 * made it, not to a reader of another actor that happened to be running". Each case failed before
 * the watcher's events were numbered and dated against each read-only call:
 * - a change made outside any call (another process, the user's editor) was charged to the next
 *   read-only call;
 * - of two read-only calls of two actors on one sandbox, the one that ended first was charged
 *   with what the other (a misclassified tool) wrote, and the writer went free;
 * - a write that escaped one sandbox through a link into another sandbox was charged to a reader of
 *   that other sandbox, and the escaping call — its link removed before it ended — was committed.
 */
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RuntimeEvent } from '../../src/runtime/runtime-events.js';
import { hex } from '../support/hex-target.js';
import { probeRuntime } from '../support/probe-runtime.js';
import { entryExists as exists } from '../support/tree-ops.js';

const probe = probeRuntime('mcp-actors-blame-');
// Unconfined: an escape through a link must be possible for the last case.
beforeEach(() => probe.start({ confine: false, actors: ['alice', 'bob'] }));
const violations = (): RuntimeEvent[] => probe.events.filter((event) => event.type === 'capability.violation');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('whom a change in the sandbox is charged to', () => {
  it('a change made outside any call is nobody’s: the next reads are not blamed and the change stays', async () => {
    const sandbox = await probe.runtime.createSandbox(probe.project);
    const bob = await probe.runtime.activate('bob', { tenant: 't', sandbox });
    expect((await bob.call('probe/read', { path: join(sandbox.root, 'README.md') })).status).toBe('committed');
    writeFileSync(join(sandbox.root, 'edited-by-hand.txt'), 'mine\n'); // not a call: the test process itself
    await sleep(50);
    for (let i = 0; i < 3; i++) {
      const outcome = await bob.call('probe/read', { path: join(sandbox.root, 'README.md') });
      expect(outcome).toMatchObject({ status: 'committed', changes: [] });
    }
    expect(violations()).toEqual([]);
    expect(readFileSync(join(sandbox.root, 'edited-by-hand.txt'), 'utf8')).toBe('mine\n');
    // A read-only call that does write is still caught after that.
    const sneaky = await bob.call('probe/read_sneaky_slowly', { path: join(sandbox.root, 'sneaky.txt'), ms: 0 });
    expect(sneaky).toMatchObject({ status: 'rolled-back', error: { code: 'CAPABILITY_VIOLATION' } });
    expect(exists(join(sandbox.root, 'sneaky.txt'))).toBe(false);
    expect(readFileSync(join(sandbox.root, 'edited-by-hand.txt'), 'utf8')).toBe('mine\n');
  });

  it('of two actors reading one sandbox, the misclassified tool that wrote is blamed, not the reader that ended first', async () => {
    const sandbox = await probe.runtime.createSandbox(probe.project);
    const alice = await probe.runtime.activate('alice', { tenant: 't', sandbox });
    const bob = await probe.runtime.activate('bob', { tenant: 't', sandbox });
    const sneaky = alice.call('probe/read_sneaky_slowly', { path: join(sandbox.root, 'sneaky.txt'), ms: 600 });
    await sleep(200); // alice's write is in the tree (and its event delivered) before bob starts
    const read = await bob.call('probe/read', { path: join(sandbox.root, 'README.md') });
    expect(read).toMatchObject({ status: 'committed', changes: [] });
    const outcome = await sneaky;
    expect(outcome).toMatchObject({ status: 'rolled-back', error: { code: 'CAPABILITY_VIOLATION' } });
    expect(exists(join(sandbox.root, 'sneaky.txt'))).toBe(false);
    expect(violations().map((event) => (event as { actor: string }).actor)).toEqual(['alice']);
  });

  it('a write that escaped another sandbox through a link is its call’s SANDBOX_ESCAPE, not a violation of this sandbox’s reader', async () => {
    const mine = await probe.runtime.createSandbox(probe.project);
    const theirs = await probe.runtime.createSandbox(probe.project);
    const alice = await probe.runtime.activate('alice', { tenant: 't', sandbox: mine });
    const bob = await probe.runtime.activate('bob', { tenant: 't', sandbox: theirs });
    const reading = bob.call('probe/read_slowly', { path: join(theirs.root, 'README.md'), ms: 500 });
    await sleep(100);
    const escaped = await alice.call('probe/write_through_link', {
      link: join(mine.root, 'door'),
      target: hex(theirs.root),
      leaf: 'planted.txt',
      content: 'from alice',
      ms: 100,
    });
    // The link was gone before the call ended: only the watcher's look during the call saw it.
    expect(exists(join(mine.root, 'door'))).toBe(false);
    expect(escaped).toMatchObject({ status: 'rolled-back', error: { code: 'SANDBOX_ESCAPE' } });
    expect(escaped.error?.details.links).toEqual([{ path: 'door', target: theirs.root, resolved: realpathSync(theirs.root) }]);
    expect(readFileSync(join(theirs.root, 'planted.txt'), 'utf8')).toBe('from alice');
    const read = await reading;
    expect(read).toMatchObject({ status: 'committed', changes: [] });
    expect(violations()).toEqual([]);
    expect(probe.events.filter((event) => event.type === 'sandbox.escape').map((event) => (event as { actor: string }).actor)).toEqual([
      'alice',
    ]);
  });
});

describe('a link made and removed within a write call (unconfined, best effort)', () => {
  it('fails the call with SANDBOX_ESCAPE naming the link, although the final tree holds no link', async () => {
    const outside = join(probe.work, 'outside');
    mkdirSync(outside);
    const sandbox = await probe.runtime.createSandbox(probe.project);
    const alice = await probe.runtime.activate('alice', { tenant: 't', sandbox });
    const outcome = await alice.call('probe/write_through_link', {
      link: join(sandbox.root, 'door'),
      target: hex(outside),
      leaf: 'out.txt',
      content: 'x',
      ms: 50,
    });
    expect(outcome).toMatchObject({ status: 'rolled-back', error: { code: 'SANDBOX_ESCAPE' } });
    expect(outcome.error?.details.links).toEqual([{ path: 'door', target: outside, resolved: outside }]);
    // What it wrote outside cannot be undone; the error says so and names the confinement.
    expect(readFileSync(join(outside, 'out.txt'), 'utf8')).toBe('x');
    expect(outcome.error?.message).toMatch(/confine/);
    expect(probe.events.find((event) => event.type === 'sandbox.escape')).toMatchObject({ callId: outcome.callId, actor: 'alice' });
  });
});
