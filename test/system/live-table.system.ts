/**
 * `agents up` in a real terminal (tmux), as an operator runs it: after ten redraws the screen holds
 * exactly one header and no wrapped row, at 80×24 and 200×50 and after a resize — with a LAST
 * ERROR long enough (and with wide characters) to overflow the terminal.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { agentsBin, fixtureServer } from '../support/agents-cli.js';

/** Polls `predicate` four times a second (each poll runs tmux) until it holds; a generous limit, not a timing assertion. */
async function waitUntil(predicate: () => boolean, what: string, limitMs = 40_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const socket = `mcp-actors-live-${process.pid}`;
const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
let dir = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-actors-live-table-'));
  const fixture = fixtureServer();
  // Fails its first start with a long stderr line (so LAST ERROR has text); the table is then wider than 200 columns.
  const flaky = [
    '#!/bin/sh',
    // Its second start says so on stderr (LAST STDERR), in wide characters, then runs the fixture.
    `if [ -e "$1" ]; then echo "flaky: 服务器第二次启动成功，所有工具都已准备就绪，正在等待来自代理的请求" >&2; exec '${fixture.command}' '${fixture.args[0]!}'; fi`,
    'touch "$1"',
    'echo "flaky: 第一次启动失败 the first start fails on purpose, with a message far longer than eighty columns" >&2',
    'exit 3',
  ].join('\n');
  writeFileSync(join(dir, 'flaky.sh'), `${flaky}\n`);
  chmodSync(join(dir, 'flaky.sh'), 0o755);
  const config = {
    servers: { fixture, flaky: { command: './flaky.sh', args: ['first-start-done'] } },
    skills: { ops: { mcp_servers: ['fixture', 'flaky'] } },
    actors: { helper: { skills: ['ops'] } },
  };
  writeFileSync(join(dir, 'agents.yaml'), stringify(config));
});

afterAll(() => {
  try {
    tmux('kill-server');
  } catch {
    // no session left
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `agents up helper` in a fresh tmux session of that size; returns its name and its output log. */
function startUp(session: string, columns: number, rows: number): { log: string } {
  rmSync(join(dir, 'first-start-done'), { force: true });
  const log = join(dir, `${session}.log`);
  writeFileSync(log, '');
  tmux(
    'new-session',
    '-d',
    '-s',
    session,
    '-x',
    String(columns),
    '-y',
    String(rows),
    '-c',
    dir,
    `'${process.execPath}' '${agentsBin}' up helper; sleep 60`,
  );
  tmux('pipe-pane', '-t', session, '-o', `cat >> '${log}'`);
  return { log };
}

const redraws = (log: string): number => readFileSync(log, 'utf8').split('\u001b[J').length - 1;
const screen = (session: string, join = false): string[] => tmux('capture-pane', '-p', ...(join ? ['-J'] : []), '-t', session).split('\n');

async function settle(session: string, log: string, atLeast: number): Promise<void> {
  await waitUntil(
    () => redraws(log) >= atLeast && screen(session).some((line) => /^flaky\s+local\s+RUNNING/.test(line)),
    `${atLeast} redraws`,
  );
}

function expectOneTableNoWrap(session: string, columns: number): void {
  const lines = screen(session);
  expect(lines.filter((line) => line.startsWith('SERVER '))).toHaveLength(1);
  expect(lines.filter((line) => line.startsWith('agents: helper'))).toHaveLength(1);
  // A wrapped row would be a line that is none of the table's, and -J would join it back.
  expect(lines.filter((line) => line.trim() !== '' && !/^(agents: helper|SERVER |fixture |flaky )/.test(line))).toEqual([]);
  expect(screen(session, true)).toEqual(lines);
  expect(lines.every((line) => line.length <= columns)).toBe(true);
  expect(lines.find((line) => line.startsWith('flaky '))).toContain('…');
}

describe('the live table in a real terminal', () => {
  it.each([
    [80, 24],
    [200, 50],
  ])('at %i×%i holds one header and no wrapped row after ten redraws', async (columns, rows) => {
    const session = `s${columns}`;
    const { log } = startUp(session, columns, rows);
    await settle(session, log, 11);
    expectOneTableNoWrap(session, columns);
    tmux('send-keys', '-t', session, 'C-c');
  });

  it('redraws cleanly after the terminal is made narrower', async () => {
    const session = 'resized';
    const { log } = startUp(session, 200, 50);
    await settle(session, log, 4);
    tmux('resize-window', '-t', session, '-x', '80', '-y', '24');
    const before = redraws(log);
    await settle(session, log, before + 3);
    expectOneTableNoWrap(session, 80);
    tmux('send-keys', '-t', session, 'C-c');
  });
});
