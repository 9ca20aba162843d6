#!/usr/bin/env node
/**
 * The attacker of the race tests, in a process of its own so its timing owes nothing to the
 * host's event loop. One command per stdin line, one `done <n>` line per command when it is over:
 *
 *   plant <n> <dir> <target> <delayUs> <stopFile>
 *     after delayUs, replace the empty directory <dir> by a symlink to <target> (once), and leave it.
 *   flip <n> <dir> <target> <file> <stopFile>
 *     toggle <dir> between an empty directory and a symlink to <target> as fast as it can, until
 *     <file> appears inside <target> (a write got out: the directory is put back, so nothing in the
 *     sandbox shows it), a write landed inside (the directory cannot be removed any more), or
 *     <stopFile> exists (the call is over).
 */
import { existsSync, mkdirSync, rmdirSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { attempt, spin } from './racer-steps.mjs';

function plant(dir, target, delayUs, stopFile) {
  const end = process.hrtime.bigint() + BigInt(Math.round(delayUs * 1000));
  while (process.hrtime.bigint() < end) if (existsSync(stopFile)) return;
  if (attempt(() => rmdirSync(dir))) attempt(() => symlinkSync(target, dir));
}

function flip(dir, target, file, stopFile) {
  const outside = join(target, file);
  const deadline = Date.now() + 10_000;
  for (let i = 0; Date.now() < deadline; i++) {
    if (existsSync(stopFile)) return;
    if (!attempt(() => rmdirSync(dir))) return; // a write landed inside: the directory stays
    attempt(() => symlinkSync(target, dir));
    spin(30);
    const escaped = existsSync(outside);
    attempt(() => unlinkSync(dir));
    attempt(() => mkdirSync(dir));
    if (escaped) return;
    spin(30);
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const [command, n, ...rest] = line.split('\t');
  if (command === 'plant') plant(rest[0], rest[1], Number(rest[2]), rest[3]);
  else if (command === 'flip') flip(rest[0], rest[1], rest[2], rest[3]);
  process.stdout.write(`done ${n}\n`);
});
