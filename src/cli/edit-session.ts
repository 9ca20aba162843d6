/**
 * One edit of agents.yaml by a command: read the file, plan the change on its data, splice it
 * into the text (`applyYamlEdits`, which keeps the rest byte for byte), check that the result is
 * a valid file with no problem the original did not have, and replace the file atomically. A
 * mistake anywhere leaves the file as it was and is reported in one line. The whole
 * read-modify-write holds the file's inter-process lock (`.agents.yaml.lock` beside the real
 * file), so two `agents` commands editing at once both keep their edits: the second reads the
 * file the first wrote.
 */
import { isAbsolute, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { parseAgentsConfig } from '../config/agents-file.js';
import { editTarget, replaceFile, readSnapshot } from './atomic-file.js';
import { withFileLock } from '../files/file-lock.js';
import { isRecord } from '../config/file-keys.js';
import { type YamlEdit, applyYamlEdits } from './yaml-edit.js';
import { type ConfigProblem, isConfigError } from '../errors/config-error.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import { closest } from '../config/suggest.js';
import { configFile, type CommandContext } from './command-context.js';

/** The sections of the file as plain data (an absent or empty section is `{}`). */
export interface FileData {
  readonly servers: Record<string, unknown>;
  readonly tools: Record<string, unknown>;
  readonly skills: Record<string, unknown>;
  readonly actors: Record<string, unknown>;
}

export interface EditPlan {
  readonly edits: readonly YamlEdit[];
  /** What was done, for the person: one line or a few. */
  readonly message: string;
}

/** How long an edit waits for another `agents` command's edit of the same file (`--check` may start a server meanwhile). */
const EDIT_LOCK_TIMEOUT_MS = 120_000;

/** The environment variable that makes a write pause before its rename (crash tests). */
export const PAUSE_BEFORE_RENAME_ENV = 'MCP_ACTORS_TEST_PAUSE_BEFORE_RENAME_MS';

/** A one-line error with a code; the CLI prints `error [CODE]: message` and exits 1. */
export function editError(code: keyof typeof ErrorCode, message: string): McpActorsError {
  return new McpActorsError(ErrorCode[code], message);
}

const sectionOf = (data: Record<string, unknown>, key: string): Record<string, unknown> => (isRecord(data[key]) ? data[key] : {});

/** Reads the file's sections; `missing` says what to do when the file does not exist yet. */
export async function readFileData(
  context: CommandContext,
  missing: 'empty' | 'refuse',
): Promise<{ path: string; text: string | undefined; data: FileData }> {
  return readDataAt(configFile(context), absolute(context, configFile(context)), missing);
}

async function readDataAt(
  path: string,
  file: string,
  missing: 'empty' | 'refuse',
): Promise<{ path: string; text: string | undefined; data: FileData }> {
  const snapshot = await readSnapshot(file);
  if (snapshot.text === undefined && missing === 'refuse') {
    throw editError('NOT_FOUND', `${path} does not exist; create it with agents init, or name another file with --file`);
  }
  return { path, text: snapshot.text, data: parseData(path, snapshot.text ?? '') };
}

function absolute(context: CommandContext, path: string): string {
  return isAbsolute(path) ? path : resolve(process.cwd(), path);
}

function parseData(path: string, text: string): FileData {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const at = first.linePos?.[0];
    const where = at ? `${path}:${at.line}:${at.col}` : path;
    throw editError(
      'CONFIG_INVALID',
      `${where}: ${first.message.split('\n')[0]}; fix the file first (agents validate shows every problem)`,
    );
  }
  const data: unknown = doc.toJS();
  if (data !== null && data !== undefined && !isRecord(data))
    throw editError('CONFIG_INVALID', `${path} is not a mapping of sections; fix the file first`);
  const record = isRecord(data) ? data : {};
  return {
    servers: sectionOf(record, 'servers'),
    tools: sectionOf(record, 'tools'),
    skills: sectionOf(record, 'skills'),
    actors: sectionOf(record, 'actors'),
  };
}

const withoutPosition = (problem: ConfigProblem): string => `${problem.path}\u0000${problem.problem.replace(/^.*?:\d+:\d+: /, '')}`;

function problemsOf(text: string, path: string, context: CommandContext): ConfigProblem[] {
  try {
    // As `agents validate` checks: a stdio server's program must exist (a problem the file had before does not block an edit).
    parseAgentsConfig(text, { file: path, env: context.io.env, unsetVariables: 'warn', checkCommands: true });
    return [];
  } catch (error) {
    if (isConfigError(error)) return [...error.problems];
    throw error;
  }
}

/** One line for a list of problems: the first in full, then how many more. */
export function oneLine(problems: readonly ConfigProblem[]): string {
  const [first] = problems;
  if (!first) return '';
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  return `${first.path}: ${first.problem.replace(/^.*?:\d+:\d+: /, '')}${first.hint ? ` — ${first.hint}` : ''}${more}`;
}

/**
 * Plans an edit on the file's data, writes it, prints the plan's message. `plan` throws (a
 * `UsageError` or an `editError`) to refuse; nothing is written then.
 */
export async function editAgentsFile(
  context: CommandContext,
  missing: 'empty' | 'refuse',
  plan: (data: FileData, path: string) => EditPlan,
  beforeWrite?: (path: string) => Promise<void>,
): Promise<void> {
  const given = configFile(context);
  // A link is edited where it leads (and stays a link); the lock lies beside that real file.
  const file = await editTarget(absolute(context, given));
  await withFileLock(file, () => editLocked(context, given, file, missing, plan, beforeWrite), {
    what: given,
    timeoutMs: EDIT_LOCK_TIMEOUT_MS,
  });
}

async function editLocked(
  context: CommandContext,
  given: string,
  file: string,
  missing: 'empty' | 'refuse',
  plan: (data: FileData, path: string) => EditPlan,
  beforeWrite?: (path: string) => Promise<void>,
): Promise<void> {
  const { path, text, data } = await readDataAt(given, file, missing);
  const { edits, message } = plan(data, path);
  const before = text ?? '';
  const after = applyYamlEdits(before, edits);
  const known = new Set(problemsOf(before, path, context).map(withoutPosition));
  const added = problemsOf(after, path, context).filter((problem) => !known.has(withoutPosition(problem)));
  if (added.length > 0) throw editError('CONFIG_INVALID', `nothing was written: ${oneLine(added)}`);
  await beforeWrite?.(path);
  const pause = Number(context.io.env[PAUSE_BEFORE_RENAME_ENV] ?? Number.NaN);
  await replaceFile({ path: file, text }, after, {
    ...(Number.isFinite(pause) ? { pauseBeforeRenameMs: pause } : {}),
    onPause: (temporary) => context.io.stderr.write(`paused before rename: ${temporary}\n`),
  });
  if (message !== '') context.io.stdout.write(message.endsWith('\n') ? message : `${message}\n`);
}

/** The error for a name that is not in a section, with a did-you-mean. */
export function unknownNameError(kind: string, name: string, known: readonly string[], path: string): McpActorsError {
  const near = closest(name, known);
  const hint = near !== undefined ? `did you mean "${near}"?` : known.length > 0 ? `known: ${known.join(', ')}` : `${path} has none yet`;
  return editError('NOT_FOUND', `${kind} "${name}" is not in ${path}; ${hint}`);
}
