/**
 * `agents status <actor> --watch` and `agents up <actor>`: starts the actor's servers and shows
 * them live until Ctrl+C — a table redrawn in place on a terminal (state in colour, pid, uptime,
 * restarts, next restart, calls in flight, last error, last stderr line), one plain line per change
 * when piped, or newline-delimited JSON events with `--json`. Ctrl+C stops every server it started
 * and exits 130 (the session does that).
 */
import type { Runtime, ServerStatus } from '../runtime/create-runtime.js';
import type { RuntimeEvent } from '../runtime/runtime-events.js';
import { ExitCode } from './cli-io.js';
import { toJson, type CommandContext } from './command-context.js';
import { withActorSession } from './actor-session.js';
import { paint, type Paint } from './paint.js';
import { firstLine } from './start-progress.js';
import { formatDuration, textTable } from './text-table.js';
import { LiveArea, type TerminalSize } from './live-redraw.js';
import { printable } from './terminal-width.js';

const REDRAW_MS = 1_000;

function cell(text: string, width: number): string {
  const shown = printable(text);
  return shown.length <= width ? shown : `${shown.slice(0, width - 1)}…`;
}

/** The terminal's size now (80×24 when the stream does not say). */
function terminalSize(stream: unknown): TerminalSize {
  const { columns, rows } = stream as { columns?: number; rows?: number };
  return { columns: typeof columns === 'number' && columns > 0 ? columns : 80, rows: typeof rows === 'number' && rows > 0 ? rows : 24 };
}

/** The live table's lines for these servers. */
export function watchTable(servers: readonly ServerStatus[], colour: Paint, now: number): string[] {
  if (servers.length === 0) return ['no server processes (the actor uses in-process servers only, or none)'];
  const rows = servers.map((s) => [
    printable(s.server),
    printable(s.tenant),
    s.state,
    s.pid === undefined ? '-' : String(s.pid),
    s.uptimeMs === undefined ? '-' : formatDuration(s.uptimeMs),
    String(s.restarts),
    s.nextAttemptAt === undefined ? '-' : `in ${formatDuration(Math.max(0, s.nextAttemptAt - now))}`,
    String(s.callsInFlight),
    cell(firstLine(s.lastError) || '-', 60),
    cell(firstLine(s.lastStderrLine) || '-', 40),
  ]);
  const lines = textTable([
    ['SERVER', 'TENANT', 'STATE', 'PID', 'UPTIME', 'RESTARTS', 'NEXT RESTART', 'CALLS', 'LAST ERROR', 'LAST STDERR'],
    ...rows,
  ]).split('\n');
  // Colour after aligning, so escape codes do not count as width.
  return lines.map((line, i) => {
    if (i === 0) return colour.bold(line);
    const server = servers[i - 1];
    return server === undefined ? line : line.replace(server.state, colour.state(server.state));
  });
}

/** One line for a change, when the output is not a terminal. */
export function changeLine(event: RuntimeEvent, runtime: Runtime, at: Date): string | undefined {
  const time = at.toISOString().slice(11, 19);
  if (event.type === 'server.state') {
    const server = runtime.status().servers.find((s) => s.server === event.server && s.tenant === event.tenant);
    const pid = event.pid === undefined ? '' : ` pid ${event.pid}`;
    const error = event.state === 'ERROR' || event.state === 'STARTING' ? firstLine(server?.lastError) : '';
    return `${time} ${event.server}@${event.tenant} ${event.state}${pid}${error ? ` — ${error}` : ''}`;
  }
  if (event.type === 'server.restarted') {
    return `${time} ${event.server}@${event.tenant} restart ${event.restarts}${event.error ? `: ${firstLine(event.error)}` : ''}`;
  }
  if (event.type === 'call.ended') return `${time} call ${event.tool} ${event.status}${event.errorCode ? ` (${event.errorCode})` : ''}`;
  return undefined;
}

export async function watchCommand(context: CommandContext, actor: string): Promise<number> {
  const { io, flags } = context;
  const terminal = (io.stdout as { isTTY?: boolean }).isTTY === true && !flags.json;
  const colour = paint(io);
  const area = new LiveArea(
    (text) => io.stdout.write(text),
    () => terminalSize(io.stdout),
  );
  const resizable = io.stdout as {
    on?: (event: 'resize', listener: () => void) => unknown;
    off?: (event: 'resize', listener: () => void) => unknown;
  };
  let runtimeRef: Runtime | undefined;
  let ended = false; // after Ctrl+C the table would only show servers disappearing
  const draw = (): void => {
    if (!terminal || runtimeRef === undefined || ended) return;
    const lines = [
      colour.bold(`agents: ${actor} — live (Ctrl+C stops every server and exits)`),
      '',
      ...watchTable(runtimeRef.status().servers, colour, Date.now()),
    ];
    area.draw(lines);
  };
  return withActorSession(
    context,
    actor,
    {
      progress: false,
      onRuntime: (runtime) => {
        runtimeRef = runtime;
        runtime.events$.subscribe((event) => {
          if (ended) return;
          if (flags.json) io.stdout.write(`${JSON.stringify(JSON.parse(toJson(event)))}\n`);
          else if (terminal) draw();
          else {
            const line = changeLine(event, runtime, new Date());
            if (line !== undefined) io.stdout.write(`${line}\n`);
          }
        });
      },
    },
    async ({ interrupted }) => {
      draw();
      const timer = setInterval(draw, REDRAW_MS);
      if (terminal) resizable.on?.('resize', draw);
      try {
        await interrupted;
      } finally {
        ended = true;
        clearInterval(timer);
        if (terminal) resizable.off?.('resize', draw);
      }
      return ExitCode.SIGINT;
    },
  );
}
