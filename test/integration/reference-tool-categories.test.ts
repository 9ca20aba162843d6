/**
 * The reference servers' read tools are `read` (they say `readOnlyHint: true` and their names hold
 * no write word), so an actor under `execute: ask` calls them without asking; a tool that counts
 * as writing is asked about — or refused — with the reason it counts as writing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/runtime/create-runtime.js';
import type { ApprovalRequest } from '../../src/runtime/permissions.js';
import { referenceServerPath } from '../../src/testing/reference-servers.js';
import { stringMatching } from '../support/matchers.js';

const env = process.env.MCP_ACTORS_PID_LOG ? { MCP_ACTORS_PID_LOG: process.env.MCP_ACTORS_PID_LOG } : {};
const dir = mkdtempSync(join(tmpdir(), 'ref-categories-'));
writeFileSync(join(dir, 'notes.md'), '# notes\n');
const asked: ApprovalRequest[] = [];
let runtime: Runtime;

beforeAll(async () => {
  runtime = await createRuntime({
    config: {
      servers: {
        everything: { command: process.execPath, args: [referenceServerPath('everything'), 'stdio'], env },
        files: { command: process.execPath, args: [referenceServerPath('filesystem'), dir], env },
      },
      skills: {
        all: {
          mcp_servers: [
            { server: 'everything', include: ['echo', 'toggle-simulated-logging'] },
            { server: 'files', include: ['directory_tree', 'write_file'] },
          ],
        },
      },
      actors: {
        asker: { skills: ['all'], permissions: { execute: 'ask' } },
        refuser: { skills: ['all'], permissions: { execute: 'deny' } },
      },
    },
    approve: (request) => {
      asked.push(request);
      return true;
    },
  });
});

afterAll(async () => {
  await runtime.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe('the reference servers’ tools under execute: ask', () => {
  it('runs everything/echo and files/directory_tree as read tools, without asking', async () => {
    const asker = await runtime.activate('asker', { tenant: 'acme' });
    const categories = Object.fromEntries(asker.tools().map((tool) => [tool.name, tool.category]));
    expect(categories).toEqual({
      'everything/echo': 'read',
      'everything/toggle-simulated-logging': 'execute',
      'files/directory_tree': 'read',
      'files/write_file': 'execute',
    });

    const echo = await asker.call('everything/echo', { message: 'hi' });
    expect(echo.status).toBe('committed');
    const tree = await asker.call('files/directory_tree', { path: dir });
    expect(tree.status).toBe('committed');
    expect(asked).toEqual([]);
  });

  it('asks about a writing tool with why it counts as writing and why it is destructive', async () => {
    const asker = await runtime.activate('asker', { tenant: 'acme' });
    asked.length = 0;
    const write = await asker.call('files/write_file', { path: join(dir, 'new.md'), content: 'x' });
    expect(write.status).toBe('committed');
    const toggle = await asker.call('everything/toggle-simulated-logging', {});
    expect(toggle.status).toBe('committed');
    expect(
      asked.map(({ tool, category, because, destructive, destructiveBecause }) => ({
        tool: tool.name,
        category,
        because,
        destructive,
        destructiveBecause,
      })),
    ).toEqual([
      {
        tool: 'files/write_file',
        category: 'execute',
        because: stringMatching(/^the server's annotations: readOnlyHint: false from untrusted server/),
        destructive: true,
        destructiveBecause: stringMatching(/^the server's annotations: destructiveHint: true/),
      },
      {
        tool: 'everything/toggle-simulated-logging',
        category: 'execute',
        because: "the server's annotations: readOnlyHint: false from untrusted server (counts: it is more careful)",
        // destructiveHint: false from an untrusted server would make it less careful: not believed.
        destructive: true,
        destructiveBecause: 'MCP default: follows writes (MCP default destructiveHint: true)',
      },
    ]);
  });

  it('refuses a writing tool under execute: deny and says why it counts as writing', async () => {
    const refuser = await runtime.activate('refuser', { tenant: 'acme' });
    const outcome = await refuser.call('everything/toggle-simulated-logging', {});
    expect(outcome.status).toBe('rejected');
    expect(outcome.error?.code).toBe('PERMISSION_DENIED');
    expect(outcome.error?.message).toContain(
      `"everything/toggle-simulated-logging" counts as writing because of the server's annotations: readOnlyHint: false from untrusted server`,
    );
    const echo = await refuser.call('everything/echo', { message: 'still fine' });
    expect(echo.status).toBe('committed');
  });
});
