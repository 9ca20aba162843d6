import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { escapingLinkAt, mergeLinks } from '../../../src/sandbox/escape-links.js';
import { clearEscapeTargets, escapeTargetOf, noteEscapeTarget } from '../../../src/sandbox/escape-targets.js';

afterEach(() => clearEscapeTargets());

describe('escape targets (where an escaped write may have landed)', () => {
  it('covers the target and everything below it, not its siblings or parents', () => {
    noteEscapeTarget('/tmp/sbx-b/copy', 'files/write_file', 1_000);
    expect(escapeTargetOf('/tmp/sbx-b/copy', 1_001)).toEqual({ resolved: '/tmp/sbx-b/copy', by: 'files/write_file' });
    expect(escapeTargetOf('/tmp/sbx-b/copy/a/b.txt', 1_001)?.resolved).toBe('/tmp/sbx-b/copy');
    expect(escapeTargetOf('/tmp/sbx-b/copy2/a.txt', 1_001)).toBeUndefined();
    expect(escapeTargetOf('/tmp/sbx-b', 1_001)).toBeUndefined();
  });

  it('expires a few seconds after it was last noted', () => {
    noteEscapeTarget('/x', 'w', 0);
    expect(escapeTargetOf('/x/y', 4_999)).toBeDefined();
    expect(escapeTargetOf('/x/y', 5_001)).toBeUndefined();
    noteEscapeTarget('/x', 'w', 10_000);
    expect(escapeTargetOf('/x/y', 14_000)).toBeDefined();
  });
});

describe('escapingLinkAt (the look the watcher takes during a write)', () => {
  it('names a link that leads outside, and nothing for a link inside, a file or a missing path', () => {
    const work = realpathSync(mkdtempSync(join(tmpdir(), 'escape-at-')));
    try {
      const root = join(work, 'root');
      const outside = join(work, 'outside');
      mkdirSync(root);
      mkdirSync(outside);
      mkdirSync(join(root, 'inner'));
      symlinkSync(outside, join(root, 'door'));
      symlinkSync('inner', join(root, 'ok'));
      symlinkSync('../outside', join(root, 'relative-door'));
      expect(escapingLinkAt(root, root, 'door')).toEqual({ path: 'door', target: outside, resolved: outside });
      expect(escapingLinkAt(root, root, 'relative-door')).toEqual({ path: 'relative-door', target: '../outside', resolved: outside });
      expect(escapingLinkAt(root, root, 'ok')).toBeUndefined();
      expect(escapingLinkAt(root, root, 'inner')).toBeUndefined();
      expect(escapingLinkAt(root, root, 'gone')).toBeUndefined();
      const once = mergeLinks(
        [{ path: 'door', target: 'a', resolved: '/a' }],
        [
          { path: 'door', target: 'b', resolved: '/b' },
          { path: 'x', target: 'c', resolved: '/c' },
        ],
      );
      expect(once.map((link) => `${link.path}->${link.target}`)).toEqual(['door->a', 'x->c']);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
