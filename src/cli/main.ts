/**
 * `agents`: the command-line tool over `createRuntime`. `run(argv, io)` parses the command
 * line, runs one command and returns its exit code; it never throws and never prints a stack
 * trace unless `--debug`. `main()` is what `bin/agents.mjs` calls.
 */
import { readFileSync } from 'node:fs';
import { ExitCode, processIo, type CliIo } from './cli-io.js';
import type { CommandName } from './command-specs.js';
import { toJson, type CommandContext } from './command-context.js';
import { errorJson, formatError } from './format-error.js';
import { commandHelp, mainHelp } from './help.js';
import { parseCommandLine, wantsDebug } from './parse-command-line.js';
import { isUsageError } from './usage-error.js';

type Command = (context: CommandContext) => Promise<number>;

/** Loaded on first use, so `agents tool list` does not load the runtime and the MCP SDK that `agents call` needs. */
const COMMANDS: Readonly<Record<CommandName, () => Promise<Command>>> = {
  validate: async () => (await import('./validate-command.js')).validateCommand,
  import: async () => (await import('./import-command.js')).importCommand,
  tools: async () => (await import('./tools-command.js')).toolsCommand,
  call: async () => (await import('./call-command.js')).callCommand,
  status: async () => (await import('./status-command.js')).statusCommand,
  init: async () => (await import('./init-command.js')).initCommand,
  'tool add': async () => (await import('./tool-commands.js')).toolAddCommand,
  'tool remove': async () => (await import('./tool-commands.js')).toolRemoveCommand,
  'tool list': async () => (await import('./tool-commands.js')).toolListCommand,
  'skill add': async () => (await import('./skill-actor-commands.js')).skillAddCommand,
  'skill remove': async () => (await import('./skill-actor-commands.js')).skillRemoveCommand,
  'skill list': async () => (await import('./skill-actor-commands.js')).skillListCommand,
  'actor add': async () => (await import('./skill-actor-commands.js')).actorAddCommand,
  'actor remove': async () => (await import('./skill-actor-commands.js')).actorRemoveCommand,
  'actor list': async () => (await import('./skill-actor-commands.js')).actorListCommand,
  demo: async () => (await import('./demo-command.js')).demoCommand,
  up: async () => (await import('./status-command.js')).upCommand,
  serve: async () => (await import('./serve-command.js')).serveCommand,
  auth: async () => (await import('./auth-command.js')).authCommand,
};

/** The version of the package, from its package.json (`dist/cli` and `src/cli` are both two levels down). */
export function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  const version: unknown = (JSON.parse(text) as { version?: unknown }).version;
  return typeof version === 'string' ? version : 'unknown';
}

/**
 * @example
 * const code = await run(['validate', '--file', 'agents.yaml']);
 */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const debug = wantsDebug(argv);
  const json = argv.includes('--json');
  let file: string | undefined; // --file, once parsed: hints name the file to edit
  try {
    const line = parseCommandLine(argv);
    if (line.kind === 'run') file = line.flags.file;
    if (line.kind === 'version') {
      io.stdout.write(`${packageVersion()}\n`);
      return ExitCode.OK;
    }
    if (line.kind === 'help') {
      io.stdout.write(line.command === undefined ? mainHelp(packageVersion()) : commandHelp(line.command));
      return ExitCode.OK;
    }
    const context: CommandContext = { io, flags: line.flags, positionals: line.positionals };
    return await (
      await COMMANDS[line.command]()
    )(context);
  } catch (error) {
    io.stderr.write(formatError(error, { debug, file }));
    if (isUsageError(error)) return ExitCode.USAGE;
    if (json) io.stdout.write(`${toJson({ ok: false, error: errorJson(error) })}\n`);
    return ExitCode.FAILED;
  }
}

/** Runs `agents` on this process's arguments and exits with its code once the output is written. */
export async function main(): Promise<void> {
  const code = await run(process.argv.slice(2));
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}

function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}
