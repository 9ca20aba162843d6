/**
 * The command line of `agents`, read with `node:util`'s `parseArgs` and checked against the
 * command table: an unknown command or flag, a missing value or a wrong one is a `UsageError`
 * whose message says what to write instead.
 */
import { parseArgs } from 'node:util';
import {
  COMMAND_GROUPS,
  COMMAND_NAMES,
  COMMAND_SPECS,
  COMMAND_WORDS,
  subcommandsOf,
  GLOBAL_FLAGS,
  VERSION_FLAG,
  isCommandName,
  positionalUsage,
  type CommandName,
  type CommandSpec,
  type FlagSpec,
} from './command-specs.js';
import { suggest } from './did-you-mean.js';
import { UsageError } from './usage-error.js';

/** Every flag, typed; a command reads only the ones it allows. */
export interface CliFlags {
  readonly file: string;
  readonly json: boolean;
  readonly debug: boolean;
  readonly tenant: string | undefined;
  readonly sandbox: string | undefined;
  readonly apply: boolean;
  readonly timeoutMs: number | undefined;
  readonly yes: boolean;
  readonly watch: boolean;
  readonly inspect: boolean;
  /** The flags of the editing commands by name (`arg`, `env`, `force`…): a string, a list for repeatable ones, or true. */
  readonly options: Readonly<Record<string, string | boolean | readonly string[]>>;
  /** agents auth: the token file and the redirect port. */
  readonly tokenFile?: string | undefined;
  readonly port?: string | undefined;
}

export type CommandLine =
  | { readonly kind: 'help'; readonly command: CommandName | undefined }
  | { readonly kind: 'version' }
  | { readonly kind: 'run'; readonly command: CommandName; readonly positionals: readonly string[]; readonly flags: CliFlags };

export const DEFAULT_FILE = 'agents.yaml';

type ParseArgsOptions = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/** All flags of all commands, so `parseArgs` knows which take a value and what `-t` stands for. */
function allFlags(): Record<string, FlagSpec> {
  const flags: Record<string, FlagSpec> = { ...GLOBAL_FLAGS, ...VERSION_FLAG };
  for (const name of COMMAND_NAMES) Object.assign(flags, COMMAND_SPECS[name].flags);
  return flags;
}

function parseArgsOptions(flags: Record<string, FlagSpec>): ParseArgsOptions {
  return Object.fromEntries(
    Object.entries(flags).map(([name, spec]) => [
      name,
      spec.short === undefined ? { type: spec.type } : { type: spec.type, short: spec.short },
    ]),
  );
}

/**
 * Reads `argv` (without `node` and the script). Throws a `UsageError` for anything it cannot run.
 *
 * @example
 * parseCommandLine(['call', 'triager', 'fs/read_file', '{"path":"a"}', '--tenant', 'acme']);
 * // { kind: 'run', command: 'call', positionals: ['triager', 'fs/read_file', '{"path":"a"}'], flags: { tenant: 'acme', ... } }
 */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const known = allFlags();
  const { tokens } = parseArgs({ args: [...argv], options: parseArgsOptions(known), strict: false, allowPositionals: true, tokens: true });
  const positionals = tokens.flatMap((token) => (token.kind === 'positional' ? [token.value] : []));
  const options = tokens.flatMap((token) => (token.kind === 'option' ? [token] : []));
  const has = (name: string): boolean => options.some((option) => option.name === name);

  const first = positionals[0];
  if (first === undefined) {
    if (has('help')) return { kind: 'help', command: undefined };
    if (has('version')) return { kind: 'version' };
    throw new UsageError(`no command given; write agents <command>, one of: ${COMMAND_WORDS.join(', ')} (agents --help says more)`);
  }
  if (first === 'help') {
    const topic = positionals.slice(1, 3).join(' ');
    if (topic === '') return { kind: 'help', command: undefined };
    if (isCommandName(topic)) return { kind: 'help', command: topic };
    if (positionals[1] !== undefined && isCommandName(positionals[1])) return { kind: 'help', command: positionals[1] };
  }
  const grouped = (COMMAND_GROUPS as readonly string[]).includes(first);
  if (grouped) {
    const sub = positionals[1];
    const subs = subcommandsOf(first);
    if (sub === undefined || !isCommandName(`${first} ${sub}`)) {
      if (sub === undefined && has('help')) return { kind: 'help', command: `${first} list` as CommandName };
      const near = sub === undefined ? undefined : suggest(sub, subs);
      const what = sub === undefined ? `agents ${first} needs a subcommand` : `unknown subcommand "${first} ${sub}"`;
      throw new UsageError(
        `${what}; ${near === undefined ? `write agents ${first} ${subs.join('|')}` : `did you mean "${first} ${near}"?`}`,
      );
    }
  }
  const word = grouped ? `${first} ${positionals[1] ?? ''}` : first;
  if (!isCommandName(word)) {
    const near = suggest(word, COMMAND_WORDS);
    const instead = near === undefined ? `commands: ${COMMAND_WORDS.join(', ')}` : `did you mean "${near}"?`;
    throw new UsageError(`unknown command "${word}"; ${instead} (agents --help lists the commands)`);
  }
  const spec: CommandSpec = COMMAND_SPECS[word];
  const allowed: Record<string, FlagSpec> = { ...GLOBAL_FLAGS, ...spec.flags };
  const values: Record<string, string | boolean | string[]> = {};
  for (const option of options) {
    const flag = allowed[option.name];
    if (flag === undefined) throw unknownFlag(option.rawName, option.name, spec, known);
    if (flag.type === 'boolean') {
      if (option.value !== undefined) throw new UsageError(`--${option.name} takes no value; write --${option.name} alone`);
      values[option.name] = true;
      continue;
    }
    const missing = option.value === undefined || (!option.inlineValue && !flag.dashValue && /^--?[A-Za-z]/.test(option.value));
    if (missing) throw new UsageError(`--${option.name} needs a value; write --${option.name} ${flag.value ?? '<value>'}`);
    const earlier = values[option.name];
    if (flag.multiple) {
      values[option.name] = [...(Array.isArray(earlier) ? earlier : []), option.value];
      continue;
    }
    if (earlier !== undefined) throw new UsageError(`--${option.name} is given twice; give it once`);
    values[option.name] = option.value;
  }
  if (values.help === true) return { kind: 'help', command: word };

  const rest = positionals.slice(grouped ? 2 : 1);
  checkPositionals(spec, rest);
  for (const name of spec.requiredFlags) {
    if (values[name] === undefined) {
      const flag = allowed[name];
      throw new UsageError(`agents ${word} needs --${name} ${flag?.value ?? '<value>'}: ${flag?.description ?? ''}`.trim());
    }
  }
  const flags: CliFlags = {
    file: typeof values.file === 'string' ? values.file : DEFAULT_FILE,
    json: values.json === true,
    debug: values.debug === true,
    tenant: stringValue(values.tenant),
    sandbox: stringValue(values.sandbox),
    apply: values.apply === true,
    timeoutMs: timeoutValue(values['timeout-ms']),
    yes: values.yes === true,
    watch: values.watch === true,
    inspect: values.inspect === true,
    options: Object.freeze({ ...values }),
    tokenFile: stringValue(values['token-file']),
    port: stringValue(values.port),
  };
  if (flags.apply && flags.sandbox === undefined) {
    throw new UsageError('--apply needs --sandbox <projectDir>: it writes the changes of the sandbox into that project');
  }
  if (flags.tenant !== undefined && flags.tenant.trim() === '') throw new UsageError('--tenant needs a tenant id, not an empty string');
  return { kind: 'run', command: word, positionals: rest, flags };
}

/** True when `argv` asks for stack traces; read before parsing, so a usage error can honour it too. */
export function wantsDebug(argv: readonly string[]): boolean {
  return argv.includes('--debug');
}

function stringValue(value: string | boolean | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function timeoutValue(value: string | boolean | string[] | undefined): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms < 1) {
    throw new UsageError(`--timeout-ms must be a whole number of milliseconds, at least 1, got "${value}"; write --timeout-ms 5000`);
  }
  return ms;
}

function checkPositionals(spec: CommandSpec, given: readonly string[]): void {
  const usage = `agents ${spec.name}${spec.positionals.map((p) => ` ${positionalUsage(p)}`).join('')}`;
  const missing = spec.positionals.slice(given.length).find((p) => p.required);
  if (missing) throw new UsageError(`${usage}: ${positionalUsage(missing)} is missing (${missing.description})`);
  const extra = given[spec.positionals.length];
  if (extra !== undefined) {
    const quoted = extra.length > 40 ? `${JSON.stringify(extra.slice(0, 40))}…` : JSON.stringify(extra);
    const hint = spec.name === 'call' ? '; quote the JSON arguments as one word' : '';
    throw new UsageError(`unexpected argument ${quoted}; write ${usage}${hint}`);
  }
}

function unknownFlag(raw: string, name: string, spec: CommandSpec, known: Record<string, FlagSpec>): UsageError {
  const where = `agents ${spec.name}`;
  const help = `(${where} --help lists its flags)`;
  if (name === 'version') return new UsageError(`--version takes no command; write agents --version`);
  // parseArgs names a known short flag by its long name, so `-y` on tools is found here as `yes`.
  const owners = known[name] === undefined ? [] : COMMAND_NAMES.filter((command) => Object.hasOwn(COMMAND_SPECS[command].flags, name));
  if (owners.length > 0) {
    return new UsageError(`${raw} is not a flag of ${where}; it belongs to ${owners.map((c) => `agents ${c}`).join(', ')} ${help}`);
  }
  const candidates = Object.keys({ ...GLOBAL_FLAGS, ...spec.flags });
  const near = raw.startsWith('--') ? suggest(name, candidates) : undefined;
  return new UsageError(`unknown flag ${raw} for ${where}${near === undefined ? '' : `; did you mean --${near}?`} ${help}`);
}
