/** The loose objects under git object directories, by type: what a step wrote, counted. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';

export function looseObjects(objectDirs: readonly string[]): { blob: number; tree: number; other: number } {
  const count = { blob: 0, tree: 0, other: 0 };
  for (const dir of objectDirs) {
    let fanout: string[];
    try {
      fanout = readdirSync(dir).filter((name) => /^[0-9a-f]{2}$/.test(name));
    } catch {
      continue;
    }
    for (const prefix of fanout) {
      for (const name of readdirSync(join(dir, prefix))) {
        if (name.startsWith('tmp_')) continue;
        const header = inflateSync(readFileSync(join(dir, prefix, name)))
          .subarray(0, 8)
          .toString('latin1');
        if (header.startsWith('blob ')) count.blob += 1;
        else if (header.startsWith('tree ')) count.tree += 1;
        else count.other += 1;
      }
    }
  }
  return count;
}
