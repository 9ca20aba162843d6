/**
 * `agents skill add|remove|list` and `agents actor add|remove|list`: the skills and actors of
 * agents.yaml, edited from the command line like its servers (see tool-commands.ts).
 */
import { isRecord } from '../config/file-keys.js';
import { EXECUTE_POLICIES } from '../config/agents-file-schema.js';
import type { YamlEdit } from './yaml-edit.js';
import { ExitCode } from './cli-io.js';
import { print, type CommandContext } from './command-context.js';
import { type FileData, editAgentsFile, editError, readFileData, unknownNameError } from './edit-session.js';
import { textTable } from './text-table.js';
import { checkName } from './tool-commands.js';
import { UsageError } from './usage-error.js';

const listFlag = (context: CommandContext, flag: string): string[] => {
  const value = context.flags.options[flag];
  return typeof value === 'object' ? [...value] : [];
};
const textFlag = (context: CommandContext, flag: string): string | undefined => {
  const value = context.flags.options[flag];
  return typeof value === 'string' ? value : undefined;
};

const OVERRIDE_KINDS = ['read_only', 'writes', 'destructive'] as const;

/** `--override move_file:writes` → `{ move_file: { writes: true } }`. */
function overridesFrom(context: CommandContext): Record<string, Record<string, boolean>> | undefined {
  const written = listFlag(context, 'override');
  if (written.length === 0) return undefined;
  const overrides: Record<string, Record<string, boolean>> = {};
  for (const item of written) {
    const at = item.lastIndexOf(':');
    const tool = item.slice(0, at);
    const kind = item.slice(at + 1);
    if (at <= 0 || !(OVERRIDE_KINDS as readonly string[]).includes(kind)) {
      throw new UsageError(
        `--override needs TOOL:${OVERRIDE_KINDS.join('|')}, got ${JSON.stringify(item)}; write --override delete_file:destructive`,
      );
    }
    overrides[tool] = { ...overrides[tool], [kind]: true };
  }
  return overrides;
}

export async function skillAddCommand(context: CommandContext): Promise<number> {
  const name = context.positionals[0] ?? '';
  checkName('skill', name);
  const server = textFlag(context, 'server') ?? '';
  const include = listFlag(context, 'include');
  const exclude = listFlag(context, 'exclude');
  const overrides = overridesFrom(context);
  const required = context.flags.options.required === true;
  const description = textFlag(context, 'description');
  await editAgentsFile(context, 'refuse', (data, path) => {
    if (Object.hasOwn(data.skills, name)) {
      throw editError(
        'DUPLICATE_NAME',
        `skill "${name}" is already in ${path}; choose another name, or remove it first (agents skill remove ${name})`,
      );
    }
    if (!Object.hasOwn(data.servers, server)) throw unknownNameError('server', server, Object.keys(data.servers), path);
    const plain = include.length === 0 && exclude.length === 0 && overrides === undefined && !required;
    const ref = plain
      ? server
      : {
          server,
          ...(include.length > 0 ? { include } : {}),
          ...(exclude.length > 0 ? { exclude } : {}),
          ...(required ? { required } : {}),
          ...(overrides ? { overrides } : {}),
        };
    const skill = { ...(description === undefined ? {} : { description }), mcp_servers: [ref] };
    return { edits: [{ op: 'set', path: ['skills', name], value: skill }], message: `added skill "${name}" (server ${server}) to ${path}` };
  });
  return ExitCode.OK;
}

/** The actors whose `skills` name `skill`, with the index of each mention. */
function actorsUsing(data: FileData, skill: string): { actor: string; index: number }[] {
  return Object.entries(data.actors).flatMap(([actor, config]) => {
    const skills = isRecord(config) && Array.isArray(config.skills) ? (config.skills as unknown[]) : [];
    return skills.flatMap((name, index) => (name === skill ? [{ actor, index }] : []));
  });
}

export async function skillRemoveCommand(context: CommandContext): Promise<number> {
  const name = context.positionals[0] ?? '';
  await editAgentsFile(context, 'refuse', (data, path) => {
    if (!Object.hasOwn(data.skills, name)) throw unknownNameError('skill', name, Object.keys(data.skills), path);
    const users = actorsUsing(data, name);
    const actors = [...new Set(users.map((use) => use.actor))];
    if (actors.length > 0 && context.flags.options.force !== true) {
      throw editError(
        'INVALID_ARGUMENT',
        `skill "${name}" is used by actor${actors.length === 1 ? '' : 's'} ${actors.join(', ')}; remove it there first, or run again with --force to unlink it`,
      );
    }
    const unlink: YamlEdit[] = [...users].reverse().map(({ actor, index }) => ({ op: 'delete', path: ['actors', actor, 'skills', index] }));
    const unlinked = actors.length > 0 ? `; unlinked it from actor${actors.length === 1 ? '' : 's'} ${actors.join(', ')}` : '';
    return { edits: [...unlink, { op: 'delete', path: ['skills', name] }], message: `removed skill "${name}" from ${path}${unlinked}` };
  });
  return ExitCode.OK;
}

export async function skillListCommand(context: CommandContext): Promise<number> {
  const { data } = await readFileData(context, 'refuse');
  const skills = Object.entries(data.skills).map(([name, config]) => {
    const record = isRecord(config) ? config : {};
    const refs = Array.isArray(record.mcp_servers) ? (record.mcp_servers as unknown[]) : [];
    const servers = refs.map((ref) => (typeof ref === 'string' ? ref : isRecord(ref) ? String(ref.server) : '?'));
    return { name, servers, ...(typeof record.description === 'string' ? { description: record.description } : {}) };
  });
  const rows = skills.map((s) => [s.name, `servers: ${s.servers.join(', ') || 'none'}`, s.description ?? '']);
  print(context, skills.length === 0 ? 'no skills\n' : `${textTable(rows)}\n`, () => ({ skills }));
  return ExitCode.OK;
}

export async function actorAddCommand(context: CommandContext): Promise<number> {
  const name = context.positionals[0] ?? '';
  checkName('actor', name);
  const skills = listFlag(context, 'skill');
  const execute = textFlag(context, 'execute');
  if (execute !== undefined && !(EXECUTE_POLICIES as readonly string[]).includes(execute)) {
    throw new UsageError(`--execute must be one of ${EXECUTE_POLICIES.join(', ')}, got ${JSON.stringify(execute)}`);
  }
  const description = textFlag(context, 'description');
  await editAgentsFile(context, 'refuse', (data, path) => {
    if (Object.hasOwn(data.actors, name)) {
      throw editError(
        'DUPLICATE_NAME',
        `actor "${name}" is already in ${path}; choose another name, or remove it first (agents actor remove ${name})`,
      );
    }
    const missing = skills.find((skill) => !Object.hasOwn(data.skills, skill));
    if (missing !== undefined) throw unknownNameError('skill', missing, Object.keys(data.skills), path);
    const actor = {
      ...(description === undefined ? {} : { description }),
      skills,
      ...(execute === undefined ? {} : { permissions: { execute } }),
    };
    return { edits: [{ op: 'set', path: ['actors', name], value: actor }], message: `added actor "${name}" to ${path}` };
  });
  return ExitCode.OK;
}

export async function actorRemoveCommand(context: CommandContext): Promise<number> {
  const name = context.positionals[0] ?? '';
  await editAgentsFile(context, 'refuse', (data, path) => {
    if (!Object.hasOwn(data.actors, name)) throw unknownNameError('actor', name, Object.keys(data.actors), path);
    return { edits: [{ op: 'delete', path: ['actors', name] }], message: `removed actor "${name}" from ${path}` };
  });
  return ExitCode.OK;
}

export async function actorListCommand(context: CommandContext): Promise<number> {
  const { data } = await readFileData(context, 'refuse');
  const actors = Object.entries(data.actors).map(([name, config]) => {
    const record = isRecord(config) ? config : {};
    const permissions = isRecord(record.permissions) ? record.permissions : {};
    return {
      name,
      skills: Array.isArray(record.skills) ? record.skills.map(String) : [],
      execute: typeof permissions.execute === 'string' ? permissions.execute : 'ask',
    };
  });
  const rows = actors.map((a) => [a.name, `skills: ${a.skills.join(', ') || 'none'}`, `execute: ${a.execute}`]);
  print(context, actors.length === 0 ? 'no actors\n' : `${textTable(rows)}\n`, () => ({ actors }));
  return ExitCode.OK;
}
