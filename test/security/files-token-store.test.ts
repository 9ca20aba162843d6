/**
 * The token file as two CLI processes and an attacker meet it: real `node` processes saving into
 * one `FileTokenStore` (the compiled one in dist/, as the `agents` CLI runs it) at the same
 * moment, and a link planted where the old code put its temporary file. The 2 x 400 version is
 * test/system/files-token-store.system.ts.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingKeys, saver } from '../support/token-saver.js';

let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'mcp-actors-files-token-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('FileTokenStore across processes', () => {
  it('keeps every entry when two processes save 100 entries each into one file at the same time', async () => {
    const file = join(base, 'race', 'auth.json');
    const one = saver(file, 'one-', 100);
    const two = saver(file, 'two-', 100);
    one.go();
    two.go();
    expect(await one.exited).toEqual({ code: 0, stderr: '' });
    expect(await two.exited).toEqual({ code: 0, stderr: '' });
    expect(missingKeys(file, ['one-', 'two-'], 100)).toEqual([]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Nothing left beside it: no lock, no temporary file.
    expect(readdirSync(join(base, 'race'))).toEqual(['auth.json']);
  }, 60_000);

  it('never writes through a link planted at the temporary file name the old code used (<file>.<pid>.tmp)', async () => {
    const folder = join(base, 'planted');
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const file = join(folder, 'auth.json');
    const victim = join(base, 'victim.txt');
    writeFileSync(victim, 'the attacker wants this overwritten\n');
    const child = saver(file, 'k-', 3);
    // The attacker knows the pid (ps) and plants the link before the first save.
    symlinkSync(victim, `${file}.${child.pid}.tmp`);
    child.go();
    expect(await child.exited).toEqual({ code: 0, stderr: '' });
    expect(readFileSync(victim, 'utf8')).toBe('the attacker wants this overwritten\n');
    expect(lstatSync(file).isFile()).toBe(true);
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')) as object)).toEqual(['k-0', 'k-1', 'k-2']);
    expect(lstatSync(`${file}.${child.pid}.tmp`).isSymbolicLink()).toBe(true);
    expect(existsSync(join(folder, '.auth.json.lock'))).toBe(false);
  }, 30_000);
});
