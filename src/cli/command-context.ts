/**
 * What a command is run with — its arguments, flags and I/O — and the one way commands print:
 * text for a person, or one JSON document with `--json`.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import type { CliIo } from './cli-io.js';
import type { CliFlags } from './parse-command-line.js';

export interface CommandContext {
  readonly io: CliIo;
  readonly flags: CliFlags;
  /** The command's own positional arguments (after the command name). */
  readonly positionals: readonly string[];
}

/** Prints `text` for a person, or `json()` as one JSON document under `--json`. */
export function print(context: CommandContext, text: string, json: () => unknown): void {
  context.io.stdout.write(context.flags.json ? `${toJson(json())}\n` : text);
}

/** JSON that survives what error details may hold: bigints, cycles, errors. */
export function toJson(value: unknown): string {
  return JSON.stringify(plain(value, []), null, 2);
}

function plain(value: unknown, ancestors: readonly object[]): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return value;
  if (ancestors.includes(value)) return '[circular]';
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return plain(toJSON.call(value), [...ancestors, value]);
  if (value instanceof Error) return { name: value.name, message: value.message };
  const inside = [...ancestors, value];
  if (Array.isArray(value)) return value.map((item: unknown) => plain(item, inside));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item, inside)]));
}

/** A path from the command line, relative to the working directory of the CLI. */
export function pathFrom(context: CommandContext, path: string): string {
  return isAbsolute(path) ? path : resolve(context.io.cwd, path);
}

/**
 * The agents.yaml of `--file`, named so that problems read `agents.yaml:3:5` rather than a long
 * absolute path: relative to the process's directory when it is inside it.
 */
export function configFile(context: CommandContext): string {
  const absolute = pathFrom(context, context.flags.file);
  const near = relative(process.cwd(), absolute);
  return near !== '' && !near.startsWith('..') && !isAbsolute(near) ? near : absolute;
}
