import { describe, expect, it } from 'vitest';
import { parseCommandLine, type CommandLine } from '../../../src/cli/parse-command-line.js';
import { isUsageError } from '../../../src/cli/usage-error.js';

function usageMessage(argv: string[]): string {
  try {
    parseCommandLine(argv);
  } catch (error) {
    if (isUsageError(error)) return error.message;
    throw error;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
}

function run(argv: string[]): Extract<CommandLine, { kind: 'run' }> {
  const line = parseCommandLine(argv);
  if (line.kind !== 'run') throw new Error(`expected a command, got ${line.kind}`);
  return line;
}

describe('parseCommandLine', () => {
  it('reads a call with its positionals and flags, long and short, in any order', () => {
    const line = run([
      'call',
      '-t',
      'acme',
      'triager',
      'fs/write_file',
      '{"path":"a"}',
      '--sandbox=.',
      '--apply',
      '--timeout-ms',
      '5000',
      '-y',
    ]);
    expect(line.command).toBe('call');
    expect(line.positionals).toEqual(['triager', 'fs/write_file', '{"path":"a"}']);
    expect(line.flags).toMatchObject({ tenant: 'acme', sandbox: '.', apply: true, timeoutMs: 5000, yes: true, json: false });
  });

  it('defaults --file to agents.yaml and takes it anywhere on the line', () => {
    expect(run(['validate']).flags.file).toBe('agents.yaml');
    expect(run(['--file', 'conf/a.yaml', 'validate', '--json']).flags).toMatchObject({ file: 'conf/a.yaml', json: true });
  });

  it('answers --help, <command> --help, help <command> and --version before checking anything else', () => {
    expect(parseCommandLine(['--help'])).toEqual({ kind: 'help', command: undefined });
    expect(parseCommandLine(['call', '--help'])).toEqual({ kind: 'help', command: 'call' });
    expect(parseCommandLine(['help', 'tools'])).toEqual({ kind: 'help', command: 'tools' });
    expect(parseCommandLine(['--version'])).toEqual({ kind: 'version' });
  });

  it('suggests the command a typo meant', () => {
    expect(usageMessage(['valdate'])).toBe('unknown command "valdate"; did you mean "validate"? (agents --help lists the commands)');
    expect(usageMessage(['stat'])).toContain('did you mean "status"?');
    expect(usageMessage(['deploy'])).toContain('commands: demo, validate, import, init, tool, skill, actor, tools, call, status, up');
    expect(usageMessage([])).toContain('no command given');
  });

  it('suggests the flag a typo meant, and names the command a flag belongs to', () => {
    expect(usageMessage(['tools', 'a', '--tenent', 'x'])).toBe(
      'unknown flag --tenent for agents tools; did you mean --tenant? (agents tools --help lists its flags)',
    );
    expect(usageMessage(['tools', 'a', '-t', 'x', '--apply'])).toContain(
      '--apply is not a flag of agents tools; it belongs to agents call',
    );
    expect(usageMessage(['tools', 'a', '-t', 'x', '-y'])).toContain('-y is not a flag of agents tools; it belongs to agents call');
    expect(usageMessage(['validate', '--version'])).toContain('write agents --version');
  });

  it('refuses a flag without its value instead of taking the next flag as the value', () => {
    expect(usageMessage(['tools', 'a', '--tenant', '--json'])).toBe('--tenant needs a value; write --tenant <tenant>');
    expect(usageMessage(['tools', 'a', '--tenant'])).toBe('--tenant needs a value; write --tenant <tenant>');
    expect(usageMessage(['validate', '--json=yes'])).toBe('--json takes no value; write --json alone');
    expect(usageMessage(['tools', 'a', '-t', 'x', '-t', 'y'])).toBe('--tenant is given twice; give it once');
  });

  it('checks positionals, required flags, --timeout-ms and --apply', () => {
    expect(usageMessage(['call', 'a', '-t', 'x'])).toBe(
      'agents call <actor> <tool> [json-args]: <tool> is missing (the full tool name, <server>/<tool>)',
    );
    expect(usageMessage(['call', 'a', 'b', '{"x":', '1}', '-t', 'x'])).toContain(
      'unexpected argument "1}"; write agents call <actor> <tool> [json-args]; quote the JSON',
    );
    expect(run(['status', 'a']).flags.tenant).toBeUndefined(); // the tenant defaults (default_tenant in the file, or local)
    expect(run(['status', 'a', '--watch']).flags.watch).toBe(true);
    expect(usageMessage(['call', 'a', 'b', '-t', 'x', '--timeout-ms', '0'])).toContain(
      '--timeout-ms must be a whole number of milliseconds, at least 1',
    );
    expect(usageMessage(['call', 'a', 'b', '-t', 'x', '--timeout-ms', '1.5'])).toContain('got "1.5"');
    expect(usageMessage(['call', 'a', 'b', '-t', 'x', '--apply'])).toContain('--apply needs --sandbox <projectDir>');
    expect(usageMessage(['import'])).toContain('<config.json> is missing');
  });

  it('takes arguments after -- as positionals, so JSON that starts with a dash still arrives', () => {
    expect(run(['call', 'a', 'b', '-t', 'x', '--', '-1']).positionals).toEqual(['a', 'b', '-1']);
  });
});

describe('parseCommandLine: subcommands and repeatable flags', () => {
  it('reads agents tool add with repeated flags in order, and values that start with a dash for --arg', () => {
    const line = run([
      'tool',
      'add',
      'memory',
      '--command',
      'npx',
      '--arg',
      '-y',
      '--arg',
      '@modelcontextprotocol/server-memory',
      '--env',
      'A=1',
      '--env',
      'B=2',
    ]);
    expect(line.command).toBe('tool add');
    expect(line.positionals).toEqual(['memory']);
    expect(line.flags.options).toMatchObject({ command: 'npx', arg: ['-y', '@modelcontextprotocol/server-memory'], env: ['A=1', 'B=2'] });
  });

  it('still refuses a flag as the value of a flag that does not take dashes', () => {
    expect(usageMessage(['tool', 'add', 'x', '--command', '--url'])).toBe('--command needs a value; write --command <program>');
  });

  it('says what a group needs: a subcommand, spelled right', () => {
    expect(usageMessage(['skill'])).toBe('agents skill needs a subcommand; write agents skill add|remove|list');
    expect(usageMessage(['actor', 'rmove', 'a'])).toBe('unknown subcommand "actor rmove"; did you mean "actor remove"?');
    expect(usageMessage(['tool', 'list', '--force'])).toMatch(
      /^--force is not a flag of agents tool list; it belongs to agents tool remove, agents skill remove/,
    );
  });

  it('reads help for a subcommand both ways', () => {
    expect(parseCommandLine(['help', 'skill', 'add'])).toEqual({ kind: 'help', command: 'skill add' });
    expect(parseCommandLine(['actor', 'add', '--help'])).toEqual({ kind: 'help', command: 'actor add' });
  });
});
