/**
 * What the `agents` command reads and writes: its streams, working directory, environment, exit
 * and signals — one seam, so the commands run the same in a test as in a terminal.
 */
import type { Readable } from 'node:stream';

/** A stream the CLI writes text to. */
export interface TextSink {
  write(text: string): unknown;
}

export interface CliIo {
  readonly stdout: TextSink;
  /** Messages for a person: errors, prompts, progress. Never parsed. */
  readonly stderr: TextSink;
  /** Where approval answers are read from. */
  readonly stdin: Readable;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Ends the process at once (after a signal has been handled). */
  exit(code: number): void;
  /** Calls `handler` on SIGINT and SIGTERM until the returned function is called. */
  onSignal(handler: (signal: 'SIGINT' | 'SIGTERM') => void): () => void;
}

/** Exit codes: 0 done, 1 failed, 2 the command line is wrong, 128 + signal number when interrupted. */
export const ExitCode = {
  OK: 0,
  FAILED: 1,
  USAGE: 2,
  SIGINT: 130,
  SIGTERM: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The real process. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    cwd: process.cwd(),
    env: process.env,
    exit: (code) => process.exit(code),
    onSignal(handler) {
      const onInt = (): void => handler('SIGINT');
      const onTerm = (): void => handler('SIGTERM');
      process.on('SIGINT', onInt);
      process.on('SIGTERM', onTerm);
      return () => {
        process.off('SIGINT', onInt);
        process.off('SIGTERM', onTerm);
      };
    },
  };
}
