/**
 * Where a stdio server runs, and whether its program is there. Paths are read from the folder of
 * the file that declares the server, never from wherever the host happened to start: `cwd`
 * defaults to it (so relative `args` name files beside the file), a relative `cwd` or a `command`
 * with a slash is resolved against it; a bare `command` (`npx`) is looked up on PATH, as a shell
 * would. Values with a `${…}` placeholder are left for the runtime to fill in at start.
 */

import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { FoundProblem } from './found-problem.js';
import type { ResolvedServerConfig } from './server-config.js';
import { markResolved } from './server-config.js';

const placeholder = (text: string): boolean => text.includes('${');

/** A path as written, resolved against `baseDir` unless absolute or holding a placeholder. */
function fromFolder(path: string, baseDir: string): string {
  return isAbsolute(path) || placeholder(path) ? path : resolve(baseDir, path);
}

/** The server with its `cwd` and a path-like `command` anchored in `baseDir` (the file's folder); HTTP servers as they are. */
export function placeServer(config: ResolvedServerConfig, baseDir: string): ResolvedServerConfig {
  if (config.transport !== 'stdio') return config;
  const command = config.command;
  const pathLike = command !== undefined && command.includes('/');
  return markResolved(
    Object.freeze({
      ...config,
      cwd: config.cwd === undefined ? baseDir : fromFolder(config.cwd, baseDir),
      command: pathLike ? fromFolder(command, baseDir) : command,
    }),
  );
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** One stdio server's program, checked before anything is spawned: on the server's own `env.PATH` if it sets one, else `hostPath`. */
export function commandProblems(name: string, config: ResolvedServerConfig, hostPath: string | undefined): FoundProblem[] {
  const command = config.command;
  if (config.transport !== 'stdio' || command === undefined || placeholder(command)) return [];
  const path = ['servers', name, 'command'];
  if (command.includes('/')) {
    const kind = statSync(command, { throwIfNoEntry: false });
    if (!kind) return [{ path, problem: `${command} does not exist`, hint: 'a relative command is read from the folder of this file' }];
    if (!kind.isFile()) return [{ path, problem: `${command} is not a file`, hint: 'name the program to run, not its folder' }];
    return isExecutableFile(command)
      ? []
      : [{ path, problem: `${command} is not executable`, hint: `chmod +x ${command}, or write command: node and the script in args` }];
  }
  const searchPath = config.env.PATH ?? hostPath ?? '';
  const folders = searchPath.split(delimiter).filter((folder) => folder !== '');
  if (folders.some((folder) => isExecutableFile(join(folder, command)))) return [];
  const shown = folders.length === 0 ? 'empty' : `${folders.slice(0, 4).join(delimiter)}${folders.length > 4 ? `${delimiter}…` : ''}`;
  return [{ path, problem: `"${command}" is not found on PATH`, hint: `install it, or write its full path (PATH: ${shown})` }];
}
