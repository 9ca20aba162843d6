/**
 * Attack: links a server leaves in the sandbox reach the project through `applyToHost()` as they
 * are. A link to an absolute path inside the sandbox would dangle into the world-writable temp dir
 * after `dispose()` (where anyone can then plant the file it names); a link to `/var/tmp/…` or one
 * climbing out with `../..` would point the project at files it does not own. Inside links are
 * moved into the project; outside ones are refused before anything is written.
 */
import { existsSync, lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isMcpActorsError } from '../../src/errors/index.js';
import { Sandbox } from '../../src/sandbox/sandbox.js';
import { createGitProject } from '../support/git-project.js';

let project: string;
let sandbox: Sandbox;

beforeEach(async () => {
  project = createGitProject({ 'README.md': '# demo\n', 'docs/guide.md': 'guide\n' });
  sandbox = await Sandbox.create({ projectDir: project });
});

afterEach(async () => {
  await sandbox.dispose();
  rmSync(project, { recursive: true, force: true });
});

async function refusal(): Promise<{ code: string; message: string }> {
  const error = await sandbox.applyToHost().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isMcpActorsError(error)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

describe('applyToHost and the links a server made', () => {
  it('an absolute link into the sandbox points into the project, and still resolves after dispose()', async () => {
    writeFileSync(join(sandbox.root, 'real.sh'), 'echo hi\n');
    symlinkSync(join(sandbox.root, 'real.sh'), join(sandbox.root, 'run.sh'));
    await sandbox.applyToHost();
    expect(readlinkSync(join(project, 'run.sh'))).toBe(join(project, 'real.sh'));
    await sandbox.dispose();
    expect(existsSync(join(project, 'run.sh'))).toBe(true);
  });

  it('a relative link that stays in the project is applied as it is', async () => {
    symlinkSync('../README.md', join(sandbox.root, 'docs', 'readme'));
    await sandbox.applyToHost();
    expect(readlinkSync(join(project, 'docs', 'readme'))).toBe('../README.md');
  });

  it('a link to /var/tmp is refused, and nothing is written', async () => {
    writeFileSync(join(sandbox.root, 'new.txt'), 'new\n');
    symlinkSync('/var/tmp/planted-notes.md', join(sandbox.root, 'notes.md'));
    const error = await refusal();
    expect(error.code).toBe('SANDBOX_ESCAPE');
    expect(error.message).toContain('notes.md -> /var/tmp/planted-notes.md');
    expect(existsSync(join(project, 'new.txt'))).toBe(false);
    expect(() => lstatSync(join(project, 'notes.md'))).toThrow();
  });

  it('a relative link climbing out of the project is refused', async () => {
    mkdirSync(join(sandbox.root, 'deep'), { recursive: true });
    symlinkSync('../../../etc/passwd', join(sandbox.root, 'deep', 'passwd'));
    expect((await refusal()).code).toBe('SANDBOX_ESCAPE');
    expect(() => lstatSync(join(project, 'deep', 'passwd'))).toThrow();
  });
});
