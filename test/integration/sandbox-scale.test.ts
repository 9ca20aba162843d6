/**
 * Cost in the size of the change, counted rather than timed: creating a sandbox and opening its
 * checkpoint store store no blob for a file already in HEAD (git's own objects are reused), and a
 * checkpoint after one changed file reads one file. The same at 10k files is in
 * test/system/sandbox-scale.system.ts; the times are in bench/sandbox-scale.mjs.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox } from '../../src/sandbox/sandbox.js';
import { SandboxWorkspace } from '../../src/sandbox/sandbox-workspace.js';
import { looseObjects } from '../support/loose-objects.js';
import { createScaleProject } from '../support/scale-project.js';

const FILES = 400;
let project: string;

beforeAll(() => {
  project = createScaleProject(FILES);
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe(`a sandbox of a ${FILES}-file repository`, () => {
  it('stores no blob of a file in HEAD, and a one-file checkpoint stores one blob', async () => {
    // Uncommitted work on the host: carried, and the only content hashed.
    writeFileSync(join(project, 'pkg0', 'mod0', 'part0', 'file0.ts'), 'changed on the host\n');
    writeFileSync(join(project, 'untracked.md'), 'new on the host\n');
    const sandbox = await Sandbox.create({ projectDir: project });
    try {
      expect(sandbox.checkpointSeed).toBeDefined();
      const workspace = await SandboxWorkspace.open({
        root: sandbox.root,
        logicalRoot: sandbox.logicalRoot,
        checkpointsDir: sandbox.checkpointsDir,
        checkpointSeed: sandbox.checkpointSeed,
      });
      try {
        const stores = [join(sandbox.checkpointsDir, 'git', 'objects'), join(sandbox.checkpointsDir, '..', 'objects')];
        expect(looseObjects(stores).blob).toBe(2); // the two carried files, each stored once
        const before = looseObjects(stores).blob;
        const id = await workspace.checkpoint('before', 'write_file');
        writeFileSync(join(sandbox.root, 'pkg3', 'mod3', 'part3', 'new.ts'), 'written by a tool\n');
        const report = await workspace.commitWrite(id, 'write_file');
        expect(report.changes.map((change) => change.path)).toEqual(['pkg3/mod3/part3/new.ts']);
        expect(looseObjects(stores).blob - before).toBe(1);
      } finally {
        await workspace.dispose();
      }
    } finally {
      await sandbox.dispose();
    }
  });
});
