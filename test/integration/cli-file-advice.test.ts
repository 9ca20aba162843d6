/**
 * `agents … --file leak.yaml`: when a server does not start, the advice names leak.yaml — the file
 * the operator gave — not agents.yaml. The CLI runs as a real process on dist/.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { pidLogEnv, runAgents } from '../support/agents-cli.js';

let dir = '';
const failing = (maxRestarts: number): unknown => ({
  command: '/bin/sh',
  args: ['-c', 'echo "cannot open the database" >&2; exit 3'],
  env: pidLogEnv(),
  max_restarts: maxRestarts,
  backoff: { initial_ms: 1, max_ms: 1 },
});

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cli-file-advice-'));
  for (const [file, maxRestarts] of [
    ['leak.yaml', 0],
    ['twice.yaml', 3],
  ] as const) {
    writeFileSync(
      join(dir, file),
      stringify({
        servers: { db: failing(maxRestarts) },
        skills: { data: { mcp_servers: [{ server: 'db', required: true }] } },
        actors: { helper: { skills: ['data'] } },
      }),
    );
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the advice after a server does not start', () => {
  it('names the --file the operator gave when the server gave up (SERVER_IN_ERROR)', async () => {
    const result = await runAgents(['call', 'helper', 'db/query', '--file', 'leak.yaml'], { cwd: dir, timeoutMs: 20_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('hint: fix command, args, env or cwd under servers.db in leak.yaml, then run the command again');
    expect(result.stderr).not.toContain('agents.yaml');
  });

  it('names the --file the operator gave when the start failed twice the same way', async () => {
    const result = await runAgents(['call', 'helper', 'db/query', '--file', 'twice.yaml'], { cwd: dir, timeoutMs: 20_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "Fix the server's command, args, env or cwd under servers.db in twice.yaml, then run the command again.",
    );
    expect(result.stderr).not.toContain('agents.yaml');
  });
});
