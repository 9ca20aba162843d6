#!/usr/bin/env node
/**
 * The attacker of the rollback race, in a process of its own: flips <dir> between an empty
 * directory (held <dirUs> µs) and a symlink to <target> (held <linkUs> µs) until <stopFile> exists.
 * A rollback that looks at <dir> as a directory and then opens it may open <target> instead.
 *
 *   node dir-flipper.mjs <dir> <target> <dirUs> <linkUs> <stopFile>
 */
import { existsSync, mkdirSync, rmdirSync, symlinkSync, unlinkSync } from 'node:fs';
import { attempt, spin } from './racer-steps.mjs';

// A step that fails means the rollback got there first: flipping goes on.
const [dir, target, dirUs, linkUs, stopFile] = process.argv.slice(2);
for (let i = 0; !existsSync(stopFile); i += 1) {
  attempt(() => mkdirSync(dir));
  spin(Number(dirUs));
  attempt(() => rmdirSync(dir));
  attempt(() => symlinkSync(target, dir));
  spin(Number(linkUs));
  attempt(() => unlinkSync(dir));
}
