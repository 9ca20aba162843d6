/**
 * Random trees and random changes to them, for the checkpoint property tests: names with spaces,
 * newlines, non-ASCII letters and `.git` components, odd modes, symlinks pointing anywhere.
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
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
    {
      weight: 4,
      arbitrary: fc.record({ op: fc.constant('write' as const), path: treePath, bytes: fc.uint8Array({ maxLength: options.maxBytes }) }),
    },
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

/** Whether anything (a dangling symlink too) is at `absolute`. */
export function entryExists(absolute: string): boolean {
  return tryLstat(absolute) !== undefined;
}

export function tryLstat(absolute: string): Stats | undefined {
  try {
    return lstatSync(absolute);
  } catch {
    return undefined;
  }
}

export interface ApplyOptions {
  /** Bits a chmod of a directory always keeps (so the walk, and the next steps, can still enter it). */
  readonly dirBits: number;
  /** Skip a chmod, remove or move whose entry is reached through a symlink (it would name another entry). */
  readonly skipThroughSymlink?: boolean;
  /** Gets every path the step changed (not their parents unless made), as a watcher names them. */
  readonly touched?: Set<string>;
}

/** True when some parent of `path` is not a real directory (so `path` may name another entry through a symlink). */
function throughSymlink(root: string, path: string): boolean {
  const parts = path.split('/');
  return parts.slice(1).some((_, i) => !tryLstat(join(root, ...parts.slice(0, i + 1)))?.isDirectory());
}

/**
 * Applies `step` to the tree at `root`, whatever is in the way: parents are made real directories
 * (replacing files and symlinks), an entry of the wrong type is removed first. A move into itself,
 * or whose source the way to its destination removed, is skipped.
 */
export function applyTreeOp(root: string, step: TreeOp, options: ApplyOptions): void {
  const touched = options.touched ?? new Set<string>();
  const absolute = join(root, step.path);
  if (options.skipThroughSymlink && (step.op === 'chmod' || step.op === 'remove' || step.op === 'move') && throughSymlink(root, step.path))
    return;
  const ensureParents = (to: string): void => {
    const parts = to.split('/');
    for (let i = 1; i < parts.length; i += 1) {
      const parent = parts.slice(0, i).join('/');
      const stat = tryLstat(join(root, parent));
      if (stat?.isDirectory()) continue;
      if (stat) unlinkSync(join(root, parent));
      mkdirSync(join(root, parent));
      touched.add(parent);
    }
  };
  const clear = (at: string): void => {
    if (!tryLstat(join(root, at))) return;
    rmSync(join(root, at), { recursive: true, force: true });
    touched.add(at);
  };
  switch (step.op) {
    case 'write':
      ensureParents(step.path);
      if (!tryLstat(absolute)?.isFile()) clear(step.path);
      writeFileSync(absolute, step.bytes);
      touched.add(step.path);
      return;
    case 'chmod': {
      const stat = tryLstat(absolute);
      if (!stat || stat.isSymbolicLink()) return;
      chmodSync(absolute, stat.isDirectory() ? step.mode | options.dirBits : step.mode);
      touched.add(step.path);
      return;
    }
    case 'mkdir':
      ensureParents(step.path);
      if (tryLstat(absolute)?.isDirectory()) return;
      clear(step.path);
      mkdirSync(absolute);
      touched.add(step.path);
      return;
    case 'symlink':
      ensureParents(step.path);
      clear(step.path);
      symlinkSync(step.target, absolute);
      touched.add(step.path);
      return;
    case 'remove':
      clear(step.path);
      return;
    case 'move': {
      if (!tryLstat(absolute) || step.to === step.path || step.to.startsWith(`${step.path}/`) || step.path.startsWith(`${step.to}/`))
        return;
      // Parents of the destination are made real directories first, which may replace the source.
      ensureParents(step.to);
      if (!tryLstat(absolute)) return;
      clear(step.to);
      if (!tryLstat(absolute)) return;
      renameSync(absolute, join(root, step.to));
      touched.add(step.path).add(step.to);
    }
  }
}
