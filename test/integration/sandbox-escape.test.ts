/**
 * SANDBOX_ESCAPE: a call that leaves a link inside the sandbox resolving outside it is rolled back
 * and reported (outcome, error code, `sandbox.escape` event), confined or not; a link that stays
 * inside is an ordinary change; and the escape is charged to the call that made it, never to the
 * reads another actor makes on the same sandbox meanwhile.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hex } from '../support/hex-target.js';
import { probeRuntime } from '../support/probe-runtime.js';
import { requireBwrap } from '../support/run-link-race.js';
import { entryExists as exists } from '../support/tree-ops.js';

const probe = probeRuntime('mcp-actors-escape-', { outside: true });
const start = (confine: boolean): Promise<void> => probe.start({ confine, actors: ['linker', 'reader'] });

for (const confine of [false, true]) {
  describe(`a call that leaves a link pointing outside the sandbox (${confine ? 'confined' : 'unconfined'})`, () => {
    it('fails with SANDBOX_ESCAPE naming the link, is rolled back, and is an event', async () => {
      if (confine) requireBwrap();
      await start(confine);
      const sandbox = await probe.runtime.createSandbox(probe.project);
      const linker = await probe.runtime.activate('linker', { tenant: 't', sandbox });
      const outcome = await linker.call('probe/create_link', { path: join(sandbox.root, 'out'), target: hex(probe.outside) });
      expect(outcome.status).toBe('rolled-back');
      expect(outcome.error?.code).toBe('SANDBOX_ESCAPE');
      expect(outcome.error?.details.links).toEqual([{ path: 'out', target: probe.outside, resolved: probe.outside }]);
      expect(outcome.error?.message).toMatch(/confine/);
      expect(exists(join(sandbox.root, 'out'))).toBe(false);
      const escape = probe.events.find((event) => event.type === 'sandbox.escape');
      expect(escape).toMatchObject({ type: 'sandbox.escape', callId: outcome.callId, actor: 'linker', tool: 'probe/create_link' });
    });

    it('a link that stays inside is committed like any change', async () => {
      if (confine) requireBwrap();
      await start(confine);
      const sandbox = await probe.runtime.createSandbox(probe.project);
      const linker = await probe.runtime.activate('linker', { tenant: 't', sandbox });
      const outcome = await linker.call('probe/create_link', { path: join(sandbox.root, 'readme-link'), target: 'README.md' });
      expect(outcome.status).toBe('committed');
      expect(outcome.changes).toEqual([expect.objectContaining({ path: 'readme-link', kind: 'added', type: 'symlink' })]);
    });
  });
}

describe('whom an escape is charged to', () => {
  it('the call that made the link, not the reads of another actor running meanwhile', async () => {
    await start(false);
    const sandbox = await probe.runtime.createSandbox(probe.project);
    const linker = await probe.runtime.activate('linker', { tenant: 't', sandbox });
    const reader = await probe.runtime.activate('reader', { tenant: 't', sandbox });
    let reading = true;
    // Not an immediately invoked function: TypeScript would read `reading` there as the `true` it was just given.
    const readWhileReading = async () => {
      const statuses: string[] = [];
      while (reading) statuses.push((await reader.call('probe/read', { path: join(sandbox.root, 'README.md') })).status);
      return statuses;
    };
    const reads = readWhileReading();
    const escapes: string[] = [];
    for (let i = 0; i < 10; i++) {
      const outcome = await linker.call('probe/create_link', { path: join(sandbox.root, `out-${i}`), target: hex(probe.outside) });
      escapes.push(String(outcome.error?.code));
    }
    reading = false;
    const statuses = await reads;
    expect(escapes).toEqual(Array(10).fill('SANDBOX_ESCAPE'));
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set(['committed']));
    expect(probe.events.filter((event) => event.type === 'capability.violation')).toEqual([]);
    expect(probe.events.filter((event) => event.type === 'sandbox.escape').map((event) => (event as { actor: string }).actor)).toEqual(
      Array(10).fill('linker'),
    );
  });
});
