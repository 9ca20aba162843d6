/**
 * `agents tool add|remove|list`: the MCP servers of agents.yaml, edited from the command line.
 * An entry is validated before it is written; `--check` also starts the server once and lists
 * its tools. Removing a server a skill uses is refused unless `--force`, which says what it unlinks.
 */
import { checkNamedServer } from '../config/server-config.js';
import { isRecord } from '../config/file-keys.js';
import { SERVER_NAME_PATTERN } from '../config/server-schema.js';
import type { YamlEdit } from './yaml-edit.js';
import { checkServer } from './check-server.js';
import { ExitCode } from './cli-io.js';
import { print, type CommandContext } from './command-context.js';
import { type FileData, editAgentsFile, editError, oneLine, readFileData, unknownNameError } from './edit-session.js';
import { fieldText, shellWords, textTable } from './text-table.js';
import { UsageError } from './usage-error.js';
import { exportLines, exportNote, referencedVariables, referencesForSecrets } from './secret-references.js';

const list = (context: CommandContext, flag: string): readonly string[] => {
  const value = context.flags.options[flag];
  return typeof value === 'object' ? value : [];
};
const text = (context: CommandContext, flag: string): string | undefined => {
  const value = context.flags.options[flag];
  return typeof value === 'string' ? value : undefined;
};

/** `--env K=V` pairs as a record; a pair without `=` or with an empty name is a usage error. */
export function keyValues(context: CommandContext, flag: string): Record<string, string> | undefined {
  const pairs = list(context, flag);
  if (pairs.length === 0) return undefined;
  const record: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0)
      throw new UsageError(
        `--${flag} needs NAME=value, got ${JSON.stringify(pair)}; write --${flag} ${flag === 'env' ? 'API_KEY=${API_KEY}' : 'Authorization=Bearer ${TOKEN}'}`,
      );
    const name = pair.slice(0, at);
    if (Object.hasOwn(record, name)) throw new UsageError(`--${flag} ${name} is given twice; give it once`);
    record[name] = pair.slice(at + 1);
  }
  return record;
}

export function checkName(kind: string, name: string): void {
  if (!new RegExp(SERVER_NAME_PATTERN).test(name)) {
    throw new UsageError(
      `${kind} name ${JSON.stringify(name)} is not valid: use letters, digits, ".", "_" and "-", starting with a letter or digit`,
    );
  }
}

/** The agents.yaml entry the flags describe (snake_case, only what was given). */
function entryFromFlags(context: CommandContext): Record<string, unknown> {
  const command = text(context, 'command');
  const url = text(context, 'url');
  if ((command === undefined) === (url === undefined)) {
    const both = command !== undefined ? ', not both' : '';
    throw new UsageError(`agents tool add needs --command <program> (a local server) or --url <url> (a remote one)${both}`);
  }
  const stdioOnly = ['arg', 'env', 'cwd'].filter((flag) => context.flags.options[flag] !== undefined);
  if (url !== undefined && stdioOnly.length > 0) throw new UsageError(`--${stdioOnly[0]} is for a local server (--command), not for --url`);
  if (command !== undefined && context.flags.options.header !== undefined)
    throw new UsageError('--header is for a remote server (--url), not for --command');
  const transport = text(context, 'transport');
  const entry: Record<string, unknown> = {};
  if (transport !== undefined) entry.transport = transport;
  if (command !== undefined) {
    entry.command = command;
    if (list(context, 'arg').length > 0) entry.args = [...list(context, 'arg')];
    const env = keyValues(context, 'env');
    if (env) entry.env = env;
    const cwd = text(context, 'cwd');
    if (cwd !== undefined) entry.cwd = cwd;
  } else {
    entry.url = url;
    const headers = keyValues(context, 'header');
    if (headers) entry.headers = headers;
  }
  return entry;
}

/** The skills whose `mcp_servers` name `server`, with the index of each mention. */
export function skillsUsing(data: FileData, server: string): { skill: string; index: number }[] {
  return Object.entries(data.skills).flatMap(([skill, config]) => {
    const refs = isRecord(config) && Array.isArray(config.mcp_servers) ? (config.mcp_servers as unknown[]) : [];
    return refs.flatMap((ref, index) =>
      (typeof ref === 'string' ? ref : isRecord(ref) ? ref.server : undefined) === server ? [{ skill, index }] : [],
    );
  });
}

export async function toolAddCommand(context: CommandContext): Promise<number> {
  const name = context.positionals[0] ?? '';
  checkName('server', name);
  const entry = entryFromFlags(context);
  let checked = '';
  await editAgentsFile(
    context,
    'empty',
    (data, path) => {
      if (Object.hasOwn(data.servers, name)) {
        throw editError(
          'DUPLICATE_NAME',
          `server "${name}" is already in ${path}; choose another name, or remove it first (agents tool remove ${name})`,
        );
      }
      // The entry's keys (command, args, env, cwd, url, headers, transport) are spelled alike in both styles.
      const result = checkNamedServer(name, entry, ['servers', name], 'snake_case');
      if (!result.config)
        throw editError(
          'CONFIG_INVALID',
          `nothing was written: ${oneLine(result.problems.map((p) => ({ path: p.path.join('.'), problem: p.problem, ...(p.hint ? { hint: p.hint } : {}) })))}`,
        );
      // A literal secret given with --env or --header is written as a ${VAR} reference (as `agents
      // import` does); --check still starts the server with the value given.
      const { section, exports } = referencesForSecrets({ [name]: entry }, referencedVariables(data.servers));
      return {
        edits: [{ op: 'set', path: ['servers', name], value: section[name] }],
        message: `added server "${name}" to ${path}${exportNote(exportLines(exports))}`,
      };
    },
    async (path) => {
      if (context.flags.options.check !== true) return;
      checked = await checkServer(name, entry, path);
    },
  );
  if (checked !== '') context.io.stdout.write(checked);
  return ExitCode.OK;
}

export async function toolRemoveCommand(context: CommandContext): Promise<number> {
  const name = context.positionals[0] ?? '';
  await editAgentsFile(context, 'refuse', (data, path) => {
    if (!Object.hasOwn(data.servers, name)) throw unknownNameError('server', name, Object.keys(data.servers), path);
    const users = skillsUsing(data, name);
    const overrides = Object.keys(data.tools).filter((key) => key.startsWith(`${name}/`));
    const skills = [...new Set(users.map((use) => use.skill))];
    if (skills.length > 0 && context.flags.options.force !== true) {
      throw editError(
        'INVALID_ARGUMENT',
        `server "${name}" is used by skill${skills.length === 1 ? '' : 's'} ${skills.join(', ')}; remove it there first, or run again with --force to unlink it`,
      );
    }
    // Later items first, so the indices of earlier ones still hold.
    const unlink: YamlEdit[] = [...users]
      .reverse()
      .map(({ skill, index }) => ({ op: 'delete', path: ['skills', skill, 'mcp_servers', index] }));
    const drop: YamlEdit[] = overrides.map((key) => ({ op: 'delete', path: ['tools', key] }));
    const lines = [`removed server "${name}" from ${path}`];
    if (skills.length > 0) lines.push(`unlinked it from skill${skills.length === 1 ? '' : 's'} ${skills.join(', ')}`);
    if (overrides.length > 0) lines.push(`dropped its overrides ${overrides.join(', ')}`);
    return { edits: [...unlink, ...drop, { op: 'delete', path: ['servers', name] }], message: lines.join('; ') };
  });
  return ExitCode.OK;
}

export async function toolListCommand(context: CommandContext): Promise<number> {
  const { data } = await readFileData(context, 'refuse');
  const servers = Object.entries(data.servers).map(([name, entry]) => {
    const record = isRecord(entry) ? entry : {};
    const transport = typeof record.transport === 'string' ? record.transport : record.url !== undefined ? 'streamable-http' : 'stdio';
    const target =
      typeof record.url === 'string'
        ? record.url
        : shellWords([fieldText(record.command), ...(Array.isArray(record.args) ? record.args.map(String) : [])]);
    return { name, transport, target, skills: [...new Set(skillsUsing(data, name).map((use) => use.skill))] };
  });
  const rows = servers.map((s) => [s.name, s.transport, s.target, s.skills.length > 0 ? `skills: ${s.skills.join(', ')}` : 'no skill']);
  print(context, servers.length === 0 ? 'no servers\n' : `${textTable(rows)}\n`, () => ({ servers }));
  return ExitCode.OK;
}
