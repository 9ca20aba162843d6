/**
 * Colour for a person at a terminal, and none for a pipe: ANSI styles only when the stream is a
 * TTY, `NO_COLOR` is unset and `TERM` is not `dumb` (`FORCE_COLOR=1` forces them on).
 */
import type { CliIo } from './cli-io.js';

export interface Paint {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  /** A server state in its colour: RUNNING green, STARTING/STOPPING yellow, ERROR red, STOPPED dim. */
  state(text: string): string;
}

/** True when `io.stdout` is a terminal that takes colour. */
export function wantsColour(io: Pick<CliIo, 'stdout' | 'env'>): boolean {
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true;
  if (io.env.NO_COLOR !== undefined || io.env.TERM === 'dumb') return false;
  return (io.stdout as { isTTY?: boolean }).isTTY === true;
}

/** @example paint(io).state('RUNNING') // '\u001b[32mRUNNING\u001b[39m' on a TTY, 'RUNNING' in a pipe */
export function paint(io: Pick<CliIo, 'stdout' | 'env'>): Paint {
  const enabled = wantsColour(io);
  const style = (open: number, close: number) => (text: string) => (enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  const red = style(31, 39);
  const green = style(32, 39);
  const yellow = style(33, 39);
  const dim = style(2, 22);
  return {
    enabled,
    bold: style(1, 22),
    dim,
    red,
    green,
    yellow,
    cyan: style(36, 39),
    state(text) {
      if (text === 'RUNNING') return green(text);
      if (text === 'ERROR') return red(text);
      if (text === 'STARTING' || text === 'STOPPING') return yellow(text);
      return dim(text);
    },
  };
}
