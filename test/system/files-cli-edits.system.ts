/**
 * Two `agents tool add` processes racing on one agents.yaml, 40 rounds (the attacker saw the old
 * code lose a reported edit once in 25-60 rounds, and refuse others): every command reports
 * success and every reported edit is in the file. About 40 s of CPU (80 CLI processes).
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadAgentsFile } from '../../src/config/agents-file.js';
import { runAgents } from '../support/agents-cli.js';

const ROUNDS = 40;
const base = mkdtempSync(join(tmpdir(), 'mcp-actors-files-cli-system-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('concurrent agents tool add', () => {
  it(`loses no edit in ${ROUNDS} rounds of two processes adding at once`, async () => {
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const dir = join(base, `round-${round}`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'agents.yaml'), 'servers:\n  first:\n    command: node\n');
      const [a, b] = await Promise.all(
        ['a', 'b'].map((name) => runAgents(['tool', 'add', `${name}${round}`, '--command', 'node'], { cwd: dir, timeoutMs: 60_000 })),
      );
      const servers = Object.keys((await loadAgentsFile(join(dir, 'agents.yaml'), { env: {} })).servers);
      for (const [name, run] of [
        ['a', a],
        ['b', b],
      ] as const) {
        if (run?.code !== 0) failures.push(`round ${round}: ${name} exited ${run?.code}: ${run?.stderr.trim()}`);
        else if (!servers.includes(`${name}${round}`)) failures.push(`round ${round}: ${name} reported success but is not in the file`);
      }
      expect(readdirSync(dir)).toEqual(['agents.yaml']);
      expect(readFileSync(join(dir, 'agents.yaml'), 'utf8')).toMatch(/^servers:\n {2}first:\n {4}command: node\n/);
    }
    expect(failures).toEqual([]);
  }, 600_000);
});
