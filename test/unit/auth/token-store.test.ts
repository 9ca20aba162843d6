import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileTokenStore } from '../../../src/auth/token-store.js';

const base = mkdtempSync(join(tmpdir(), 'mcp-actors-token-store-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('FileTokenStore', { timeout: 30_000 }, () => {
  it('keeps every key when two stores of one file save at once (each reads the file again under the lock)', async () => {
    const file = join(base, 'two', 'auth.json');
    const one = new FileTokenStore(file);
    const two = new FileTokenStore(file);
    await Promise.all(
      Array.from({ length: 25 }, (_, i) => [one.save(`one-${i}`, { tokensSavedAt: i }), two.save(`two-${i}`, { tokensSavedAt: i })]).flat(),
    );
    expect((await one.keys()).sort()).toEqual(
      [...Array.from({ length: 25 }, (_, i) => `one-${i}`), ...Array.from({ length: 25 }, (_, i) => `two-${i}`)].sort(),
    );
    await two.delete('one-0');
    expect(await one.load('one-0')).toBeUndefined();
    expect(await one.load('one-1')).toEqual({ tokensSavedAt: 1 });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(base, 'two')).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(base, 'two'))).toEqual(['auth.json']);
  });

  it('takes over the lock a killed process left behind', async () => {
    const folder = join(base, 'left');
    const file = join(folder, 'auth.json');
    await new FileTokenStore(file).save('before', {});
    // A pid that cannot be running (above the kernel's pid_max), as a process killed mid-save leaves it.
    writeFileSync(join(folder, '.auth.json.lock'), JSON.stringify({ pid: 2 ** 22 + 1, host: hostname(), token: 'dead' }));
    await new FileTokenStore(file).save('after', {});
    expect(await new FileTokenStore(file).keys()).toEqual(['before', 'after']);
    expect(readdirSync(folder)).toEqual(['auth.json']);
  });
});
