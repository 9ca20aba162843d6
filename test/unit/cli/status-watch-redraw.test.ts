import { describe, expect, it } from 'vitest';
import { LiveArea, redraw } from '../../../src/cli/live-redraw.js';
import { watchTable } from '../../../src/cli/status-watch.js';
import { displayWidth, fitLine } from '../../../src/cli/terminal-width.js';
import type { ServerStatus } from '../../../src/runtime/create-runtime.js';
import type { Paint } from '../../../src/cli/paint.js';

/**
 * A tiny terminal: a grid of `rows`×`columns` cells that wraps at the right edge, scrolls at the
 * bottom, and understands the codes a redraw writes (\r, \n, ESC[nA, ESC[J, SGR colours).
 */
class Grid {
  screen: string[][];
  private row = 0;
  private col = 0;
  constructor(
    readonly columns: number,
    readonly rows: number,
  ) {
    this.screen = Array.from({ length: rows }, () => []);
  }
  write(text: string): void {
    for (let i = 0; i < text.length;) {
      // eslint-disable-next-line no-control-regex -- reading the terminal's escape sequences (ESC [) is what this fake screen does
      const csi = /^\u001b\[(\d*)([A-Za-z])/.exec(text.slice(i));
      if (csi) {
        const n = Number(csi[1] || '1');
        if (csi[2] === 'A') this.row = Math.max(0, this.row - n);
        if (csi[2] === 'J') {
          this.screen[this.row] = this.screen[this.row]!.slice(0, this.col);
          for (let r = this.row + 1; r < this.rows; r++) this.screen[r] = [];
        }
        i += csi[0].length;
        continue;
      }
      const ch = String.fromCodePoint(text.codePointAt(i)!);
      i += ch.length;
      if (ch === '\r') this.col = 0;
      else if (ch === '\n') this.newline();
      else {
        const w = displayWidth(ch);
        if (this.col + w > this.columns) this.newline();
        this.screen[this.row]![this.col] = ch;
        this.col += w;
      }
    }
  }
  private newline(): void {
    this.col = 0;
    if (this.row === this.rows - 1) this.screen = [...this.screen.slice(1), []];
    else this.row += 1;
  }
  text(): string[] {
    return this.screen.map((cells) => cells.join(''));
  }
}

const plain: Paint = {
  enabled: false,
  bold: (t) => t,
  dim: (t) => t,
  red: (t) => t,
  green: (t) => t,
  yellow: (t) => t,
  cyan: (t) => t,
  state: (t) => t,
};

function server(name: string, lastError: string | undefined): ServerStatus {
  return {
    server: name,
    tenant: 'local',
    sandbox: undefined,
    state: 'ERROR',
    restarts: 5,
    lastError,
    pid: undefined,
    uptimeMs: undefined,
    actors: 1,
    nextAttemptAt: undefined,
    callsInFlight: 0,
    lastStderrLine: 'fixture: exiting on start with code 3',
    confinement: { confined: false, state: 'no-sandbox' },
  };
}

describe('the live table redrawn in place', () => {
  const table = (): string[] => [
    'agents: helper — live (Ctrl+C stops every server and exits)',
    '',
    ...watchTable(
      [
        server('fixture', 'spawn npx ENOENT: the command was not found on PATH, check servers.fixture.command'),
        server('broken', undefined),
      ],
      plain,
      0,
    ),
  ];

  it.each([
    [80, 24],
    [160, 50],
    [40, 10],
  ])('leaves exactly one header and no wrapped row after ten redraws at %i×%i', (columns, rows) => {
    const grid = new Grid(columns, rows);
    const area = new LiveArea(
      (text) => grid.write(text),
      () => ({ columns, rows }),
    );
    for (let i = 0; i < 10; i++) area.draw(table());
    const screen = grid.text();
    expect(screen.filter((line) => line.startsWith('SERVER'))).toHaveLength(1);
    expect(screen.filter((line) => line.startsWith('agents: helper'))).toHaveLength(1);
    expect(screen.every((line) => displayWidth(line) < columns)).toBe(true);
    expect(screen.filter((line) => /^(fixture|broken) /.test(line))).toHaveLength(2);
  });

  it('counts the rows the last frame takes at the new width after the terminal is made narrower', () => {
    // Drawn at 160 columns, the lines are up to 159 wide; at 80 a re-wrapping terminal shows each in two rows.
    const wide = redraw([], table(), { columns: 160, rows: 50 });
    const narrow = redraw(wide.widths, table(), { columns: 80, rows: 24 });
    const up = wide.widths.reduce((sum, width) => sum + Math.max(1, Math.ceil(width / 80)), 0);
    expect(up).toBeGreaterThan(table().length);
    expect(narrow.text.startsWith(`\r\u001b[${up}A\u001b[J`)).toBe(true);
  });

  it('cuts a table taller than the terminal, so its first line stays on screen', () => {
    const many = Array.from({ length: 30 }, (_, i) => server(`s${i}`, undefined));
    const grid = new Grid(80, 24);
    const area = new LiveArea(
      (text) => grid.write(text),
      () => ({ columns: 80, rows: 24 }),
    );
    const lines = ['header', ...watchTable(many, plain, 0)];
    for (let i = 0; i < 10; i++) area.draw(lines);
    expect(grid.text().filter((line) => line === 'header')).toHaveLength(1);
    expect(grid.text().some((line) => line.includes('more lines'))).toBe(true);
  });

  it('counts wide characters as two columns and keeps a server’s control characters off the terminal', () => {
    expect(displayWidth('服务器')).toBe(6);
    expect(displayWidth('\u001b[31mRED\u001b[39m')).toBe(3);
    expect(displayWidth(fitLine('服务器服务器服务器', 7))).toBeLessThanOrEqual(7);
    expect(fitLine('\u001b[1mSERVER STATE\u001b[22m', 6)).toBe('\u001b[1mSERVE…\u001b[0m');
    const row = watchTable([server('x', 'bad\u001b[2J\tthing')], plain, 0)[1]!;
    // eslint-disable-next-line no-control-regex -- the test is that no control character reaches the row
    expect(row).not.toMatch(/[\u0000-\u001f]/);
  });
});
