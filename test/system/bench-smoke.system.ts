/**
 * The call-path benchmark's smoke run: a few hundred calls through every contender (raw SDK,
 * LangChain, McpClient, actor.call) over the stdio fixture, every answer checked by the script
 * itself, and the report and chart written. No timing is asserted. It runs the built package
 * (`dist/`), as `npm run bench` does: `npm test` builds first.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'mcp-actors-bench-smoke-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('npm run bench, smoke', () => {
  it('runs every contender with every answer checked and writes the report and its chart', async () => {
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--expose-gc', join(root, 'bench/call-path.mjs'), '--smoke', `--out=${out}`],
        { cwd: root, timeout: 150_000 },
        (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(stderr).not.toMatch(/Error:/);
    expect(code).toBe(0);
    const report = readFileSync(join(out, 'benchmarks.md'), 'utf8');
    expect(stdout).toBe(report);
    for (const name of [
      'raw SDK Client',
      'LangChain MultiServerMCPClient',
      'mcp-actors McpClient',
      'mcp-actors McpClient, with the tenant _meta',
      'mcp-actors actor.call (full pipeline)',
    ]) {
      expect(report).toContain(`| ${name} |`);
      // What the server counted: exactly one tools/call per call made, and no cancellation.
      expect(report).toContain(`- ${name}: 1.000 tools/call per call, 0 notifications/cancelled`);
    }
    // CPU per call, on each side of the pipe, for every contender (Linux: read from /proc).
    const cpuRows = report.split('## CPU per call')[1]?.split('\n## ')[0] ?? '';
    expect(cpuRows.match(/^\| [^|]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \|$/gm)).toHaveLength(5);
    // The machine's own cost is also taken with the runtime's inspector server and one viewer.
    expect(report).toMatch(
      /\| \(for reference\) the same, with the inspector server and one viewer \(a process of its own\) \| \| p50 [\d.]+ µs, p99 [\d.]+ µs \([\d,]+ messages to the viewer\)/,
    );
    expect(report).not.toContain('not on this branch');
    expect(report).toContain('Warnings printed during the run: none.');
    expect(readFileSync(join(out, 'benchmarks.svg'), 'utf8')).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  }, 180_000);
});
