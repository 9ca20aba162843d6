/**
 * End to end: tool calls through the tool-call machine in a sandbox, against the real
 * @modelcontextprotocol/server-filesystem (its allowed directory given only as MCP roots) and the
 * fixture server for the misbehaving cases.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpToolAdapter } from '../../src/adapter/mcp-tool-adapter.js';
import { runToolCall } from '../../src/tool-call/run-tool-call.js';
import { ToolRegistry } from '../../src/registry/tool-registry.js';
import { Sandbox } from '../../src/sandbox/sandbox.js';
import { SandboxWorkspace } from '../../src/sandbox/sandbox-workspace.js';
import { fixtureServerConfig } from '../../src/testing/fixture.js';
import { referenceServerConfig } from '../../src/testing/reference-servers.js';
import { createGitProject } from '../support/git-project.js';

let project: string;
let sandbox: Sandbox;
let workspace: SandboxWorkspace;
const registry = new ToolRegistry();
const adapters: McpToolAdapter[] = [];
/** What beforeAll opened, for afterAll to dispose in reverse: a beforeAll that failed part way opened less. */
const opened: { dispose(): Promise<void> }[] = [];

function text(outcome: { result?: { content: readonly Record<string, unknown>[] } | undefined }): string {
  return String(outcome.result?.content[0]?.text);
}

beforeAll(async () => {
  project = createGitProject({ 'src/main.py': 'print(1)\n', 'README.md': '# demo\n' });
  sandbox = await Sandbox.create({ projectDir: project });
  opened.push(sandbox);
  workspace = await SandboxWorkspace.open(sandbox);
  opened.push(workspace);
  const filesystem = new McpToolAdapter({ ...referenceServerConfig('filesystem', { name: 'fs' }), roots: [sandbox.root] });
  const fixture = new McpToolAdapter(fixtureServerConfig({ name: 'fx', extra: { cwd: sandbox.root } }));
  adapters.push(filesystem, fixture);
  await Promise.all(adapters.map((a) => a.connect()));
  await filesystem.registerTools(registry, { namespace: 'fs' });
  await fixture.registerTools(registry, { namespace: 'fx' });
});

afterAll(async () => {
  await Promise.all(adapters.map((a) => a.dispose()));
  for (const resource of opened.reverse()) await resource.dispose();
  rmSync(project, { recursive: true, force: true });
});

const environment = () => ({ registry, workspace });

describe('tool calls in a sandbox', () => {
  it('writes the sandbox file, not the host file, and names the logical path in the result', async () => {
    const outcome = await runToolCall(environment(), { tool: 'fs/write_file', args: { path: 'src/main.py', content: 'print(2)\n' } });
    expect(outcome.status).toBe('committed');
    expect(readFileSync(join(sandbox.root, 'src/main.py'), 'utf8')).toBe('print(2)\n');
    expect(readFileSync(join(project, 'src/main.py'), 'utf8')).toBe('print(1)\n');
    expect(text(outcome)).toBe('Successfully wrote to src/main.py');
    expect(JSON.stringify(outcome.result)).not.toContain(sandbox.root);
    expect(outcome.checkpointId).toBeDefined();
    expect(outcome.changes).toEqual([expect.objectContaining({ path: 'src/main.py', kind: 'modified' })]);
    expect(outcome.changes[0]!.before).not.toBe(outcome.changes[0]!.after);
  });

  it('reads through the first call although the server learns its directory from roots', async () => {
    const outcome = await runToolCall(environment(), { tool: 'fs/read_text_file', args: { path: 'README.md' } });
    expect(outcome).toMatchObject({ status: 'committed', checkpointId: undefined, changes: [] });
    expect(text(outcome)).toBe('# demo\n');
  });

  it('rolls back a call that fails after writing, and says effects outside the sandbox were not undone', async () => {
    const before = readFileSync(join(sandbox.root, 'src/main.py'), 'utf8');
    const outcome = await runToolCall(environment(), { tool: 'fx/write_then_fail', args: { path: 'src/main.py', content: 'broken' } });
    expect(outcome.status).toBe('rolled-back');
    expect(outcome.error?.code).toBe('TOOL_FAILED');
    expect(outcome.note).toContain('outside the sandbox');
    expect(readFileSync(join(sandbox.root, 'src/main.py'), 'utf8')).toBe(before);
  });

  it('catches a read-only tool that writes, reports a capability violation and rolls it back', async () => {
    expect(registry.get('fx/read_sneaky')!.capabilities.readOnly).toBe(true);
    const outcome = await runToolCall(environment(), { tool: 'fx/read_sneaky', args: { path: 'notes.txt' } });
    expect(outcome.status).toBe('rolled-back');
    expect(outcome.error?.code).toBe('CAPABILITY_VIOLATION');
    expect(outcome.error?.message).toContain('notes.txt');
    expect(existsSync(join(sandbox.root, 'notes.txt'))).toBe(false);
  });

  it('refuses a path that leaves the sandbox before the server sees it', async () => {
    const outcome = await runToolCall(environment(), { tool: 'fs/write_file', args: { path: '../escape.txt', content: 'x' } });
    expect(outcome.status).toBe('rejected');
    expect(outcome.error?.code).toBe('SANDBOX_PATH');
    expect(existsSync(join(sandbox.root, '..', 'escape.txt'))).toBe(false);
  });

  it('runs concurrent calls as if one after another: reads together, each write alone', async () => {
    const writes = Array.from({ length: 6 }, (_, i) =>
      runToolCall(environment(), { tool: 'fs/write_file', args: { path: 'counter.txt', content: `${i}\n` } }),
    );
    const reads = Array.from({ length: 6 }, () => runToolCall(environment(), { tool: 'fs/list_directory', args: { path: '.' } }));
    const outcomes = await Promise.all([...writes, ...reads]);
    expect(outcomes.every((o) => o.status === 'committed')).toBe(true);
    const writeChanges = outcomes.slice(0, 6).map((o) => o.changes.find((c) => c.path === 'counter.txt')!);
    // Serial writes form one chain: each write's "before" is exactly one other write's "after".
    const afters = new Set(writeChanges.map((c) => c.after));
    const firsts = writeChanges.filter((c) => c.kind === 'added');
    expect(firsts).toHaveLength(1);
    for (const change of writeChanges) if (change.kind === 'modified') expect(afters.has(change.before)).toBe(true);
  });

  it('lets read-only calls overlap and runs every write alone', async () => {
    const span = (outcome: { result?: { content: readonly Record<string, unknown>[] } | undefined }) =>
      JSON.parse(String(outcome.result?.content[0]?.text)) as { start: number; end: number };
    const calls = [
      runToolCall(environment(), { tool: 'fx/read_slowly', args: { ms: 300 } }),
      runToolCall(environment(), { tool: 'fx/read_slowly', args: { ms: 300 } }),
      runToolCall(environment(), { tool: 'fx/write_slowly', args: { ms: 150 } }),
      runToolCall(environment(), { tool: 'fx/read_slowly', args: { ms: 300 } }),
      runToolCall(environment(), { tool: 'fx/write_slowly', args: { ms: 150 } }),
    ];
    const outcomes = await Promise.all(calls);
    expect(outcomes.map((o) => o.status)).toEqual(['committed', 'committed', 'committed', 'committed', 'committed']);
    const spans = outcomes.map(span);
    const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start < b.end && b.start < a.end;
    // The first two reads were granted together.
    expect(overlap(spans[0]!, spans[1]!)).toBe(true);
    // No write overlaps any other call.
    for (const w of [2, 4]) {
      spans.forEach((other, i) => {
        if (i !== w) expect(overlap(spans[w]!, other), `call ${w} overlaps call ${i}`).toBe(false);
      });
    }
  });

  it('restores after a misbehaving read-only call only once the other readers are done', async () => {
    const slow = runToolCall(environment(), { tool: 'fx/read_slowly', args: { ms: 400 } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    let sneakyDoneAt = 0;
    const sneaky = runToolCall(environment(), { tool: 'fx/read_sneaky', args: { path: 'sneaky.txt' } }).then((outcome) => {
      sneakyDoneAt = Date.now();
      return outcome;
    });
    const [slowOutcome, sneakyOutcome] = await Promise.all([slow, sneaky]);
    expect(slowOutcome.status).toBe('committed');
    expect(sneakyOutcome).toMatchObject({ status: 'rolled-back', error: { code: 'CAPABILITY_VIOLATION' } });
    const slowSpan = JSON.parse(String(slowOutcome.result?.content[0]?.text)) as { end: number };
    expect(sneakyDoneAt).toBeGreaterThanOrEqual(slowSpan.end);
    expect(existsSync(join(sandbox.root, 'sneaky.txt'))).toBe(false);
  });

  it('rolls the whole sandbox back to any earlier checkpoint', async () => {
    const first = await runToolCall(environment(), { tool: 'fs/write_file', args: { path: 'a.txt', content: 'one' } });
    await runToolCall(environment(), { tool: 'fs/write_file', args: { path: 'a.txt', content: 'two' } });
    expect(first.checkpointId).toBeDefined(); // else rollbackTo would fall back to the first checkpoint, and pass anyway
    await workspace.rollbackTo(first.checkpointId);
    expect(existsSync(join(sandbox.root, 'a.txt'))).toBe(false);
  });

  it('brings the change set home with applyToHost()', async () => {
    expect(readFileSync(join(project, 'src/main.py'), 'utf8')).toBe('print(1)\n');
    const diff = await sandbox.diff();
    expect(diff).toContain('+print(2)');
    await sandbox.applyToHost();
    expect(readFileSync(join(project, 'src/main.py'), 'utf8')).toBe('print(2)\n');
  });
});
