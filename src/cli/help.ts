/**
 * The help of `agents` and of each command, written from the command table.
 */
import {
  COMMAND_NAMES,
  COMMAND_SPECS,
  GLOBAL_FLAGS,
  VERSION_FLAG,
  positionalUsage,
  type CommandName,
  type FlagSpec,
} from './command-specs.js';

function flagLines(flags: Readonly<Record<string, FlagSpec>>): string[] {
  const rows = Object.entries(flags).map(([name, spec]) => {
    const short = spec.short === undefined ? '    ' : `-${spec.short}, `;
    return [`${short}--${name}${spec.value === undefined ? '' : ` ${spec.value}`}`, spec.description] as const;
  });
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

/** `agents --help`. */
export function mainHelp(version: string): string {
  const width = Math.max(...COMMAND_NAMES.map((name) => name.length));
  return [
    `agents ${version}: drive the mcp-actors runtime of an agents.yaml from the terminal`,
    '',
    'usage: agents <command> [arguments] [flags]',
    '',
    'commands:',
    ...COMMAND_NAMES.map((name) => `  ${name.padEnd(width)}  ${COMMAND_SPECS[name].summary}`),
    '',
    'flags of every command:',
    ...flagLines({ ...GLOBAL_FLAGS, ...VERSION_FLAG }),
    '',
    'Exit codes: 0 done, 1 failed (the error says why), 2 the command line is wrong, 130 interrupted.',
    'agents <command> --help shows the arguments and flags of a command.',
    '',
  ].join('\n');
}

/** `agents <command> --help`. */
export function commandHelp(command: CommandName): string {
  const spec = COMMAND_SPECS[command];
  const flags = spec.flags as Readonly<Record<string, FlagSpec>>;
  const required = spec.requiredFlags.map((name) => ` --${name} ${flags[name]?.value ?? '<value>'}`).join('');
  const positionals = spec.positionals.map((p) => ` ${positionalUsage(p)}`).join('');
  const lines = [
    `usage: agents ${command}${positionals}${required} [flags]`,
    '',
    `${spec.summary[0]?.toUpperCase()}${spec.summary.slice(1)}.`,
  ];
  if (spec.details.length > 0) lines.push(...spec.details);
  if (spec.positionals.length > 0) {
    const width = Math.max(...spec.positionals.map((p) => positionalUsage(p).length));
    lines.push('', 'arguments:', ...spec.positionals.map((p) => `  ${positionalUsage(p).padEnd(width)}  ${p.description}`));
  }
  if (Object.keys(flags).length > 0) lines.push('', 'flags:', ...flagLines(flags));
  lines.push('', 'flags of every command:', ...flagLines(GLOBAL_FLAGS));
  lines.push('', 'examples:', ...spec.examples.map((example) => `  ${example}`), '');
  return lines.join('\n');
}
