/**
 * Random trees and random changes to them, for the checkpoint property tests: names with spaces,
 * newlines, non-ASCII letters and `.git` components, odd modes, symlinks pointing anywhere.
 */
import { lstatSync, mkdtempSync, rmSync, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll } from 'vitest';

export type TreeOp =
  | { readonly op: 'write'; readonly path: string; readonly bytes: Uint8Array }
  | { readonly op: 'chmod'; readonly path: string; readonly mode: number }
  | { readonly op: 'mkdir'; readonly path: string }
  | { readonly op: 'symlink'; readonly path: string; readonly target: string }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'move'; readonly path: string; readonly to: string };

const TOP = ['a', 'b', 'c d', 'é'];
const BELOW = ['a', 'b', 'x\ny', '.git', 'f'];
const treePath = fc
  .tuple(fc.constantFrom(...TOP), fc.array(fc.constantFrom(...BELOW), { maxLength: 2 }))
  .map(([top, rest]) => [top, ...rest].join('/'));

export interface TreeOpOptions {
  readonly maxBytes: number;
  readonly modes: readonly number[];
  readonly targets: readonly string[];
  readonly moveWeight: number;
}

export function treeOps(options: TreeOpOptions): fc.Arbitrary<TreeOp> {
  const mode = fc.constantFrom(...options.modes);
  const target = fc.constantFrom(...options.targets);
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ op: fc.constant('write' as const), path: treePath, bytes: fc.uint8Array({ maxLength: options.maxBytes }) }) },
    { weight: 3, arbitrary: fc.record({ op: fc.constant('chmod' as const), path: fc.oneof(treePath, fc.constant('')), mode }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('mkdir' as const), path: treePath }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('symlink' as const), path: treePath, target }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('remove' as const), path: treePath }) },
    { weight: options.moveWeight, arbitrary: fc.record({ op: fc.constant('move' as const), path: treePath, to: treePath }) },
  );
}

/** Temporary directories removed after the file's tests (also after a run cut short by a timeout). */
export function tempDirs(): (prefix: string) => string {
  const temps: string[] = [];
  afterAll(() => {
    for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (prefix) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    temps.push(dir);
    return dir;
  };
}

export function tryLstat(absolute: string): Stats | undefined {
  try {
    return lstatSync(absolute);
  } catch {
    return undefined;
  }
}
