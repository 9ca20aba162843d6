/**
 * How a server's process ended, as the stdio transport reports it, and the sentence that says so
 * in error messages.
 */
import { ErrorCode, type McpActorsError } from '../errors/index.js';

/** How the stop escalation got the leader to exit: the last step taken before it did. */
export type StopStep = 'stdin-closed' | 'SIGTERM' | 'SIGKILL';

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Exit code 0 and no signal. */
  readonly normal: boolean;
  /** Why the transport ended the process itself (MESSAGE_TOO_LARGE), or why it never ran (SPAWN_FAILED). */
  readonly reason?: McpActorsError;
  readonly stderrTail: readonly string[];
  /** True when `close()` was called before the process exited. */
  readonly requested: boolean;
  /** Set when the transport was stopping the process (`close()` or a too-large message). */
  readonly stopStep?: StopStep;
}

/** How many stderr lines `describeExit` quotes. */
const STDERR_LINES_IN_MESSAGE = 10;

/**
 * A one-line (plus stderr) account of how a server's process ended, for error messages.
 *
 * @example
 * describeExit(transport.exit!, 'github'); // 'server "github" exited with code 1: Error: bad token'
 */
export function describeExit(exit: ProcessExit, serverName: string): string {
  if (exit.reason?.code === ErrorCode.SPAWN_FAILED) return exit.reason.message;
  if (exit.code === null && exit.signal === null) return `server "${serverName}" was never started`;
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  const text = exit.reason
    ? `${exit.reason.message}; the process ${how}`
    : exit.requested
      ? `server "${serverName}" was stopped and ${how}`
      : `server "${serverName}" ${how}`;
  const tail = exit.stderrTail.slice(-STDERR_LINES_IN_MESSAGE);
  if (tail.length > 0) return `${text}: ${tail.join('\n')}`;
  return exit.requested || exit.reason ? text : `${text} (it wrote nothing to stderr)`;
}
