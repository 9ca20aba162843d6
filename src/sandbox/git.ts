/**
 * A tiny git runner for the checkpoint store: argument arrays (never a shell, except the fixed
 * `umask` wrapper), a private repository and index, and an environment in which no configuration
 * of the user, the system or the tracked tree can change what git stores or writes.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode } from '../errors/codes.js';
import { runGitProcess, splitNul } from './git-process.js';

/**
 * `-c` settings on every command. Together with the environment below they make the snapshot
 * byte-exact (no CRLF or filter conversion), run no hook or fsmonitor of anybody, keep every mode
 * bit git can keep, and refuse fewer names (the NTFS/HFS protections reject `a\b`, `git~1`, …).
 */
export const GIT_CONFIG_FLAGS: readonly string[] = [
  'core.bare=false',
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.eol=lf',
  'core.fileMode=true',
  'core.symlinks=true',
  'core.ignoreCase=false',
  'core.precomposeUnicode=false',
  'core.protectNTFS=false',
  'core.protectHFS=false',
  'core.trustctime=true',
  'core.checkStat=default',
  'core.hooksPath=/dev/null',
  'core.excludesFile=/dev/null',
  'core.attributesFile=/dev/null',
  'core.fsmonitor=false',
  'core.untrackedCache=false',
  'core.splitIndex=false',
  'core.sparseCheckout=false',
  'core.quotePath=false',
  'core.logAllRefUpdates=false',
  'index.sparse=false',
  'feature.manyFiles=false',
  'gc.auto=0',
  'maintenance.auto=false',
  'submodule.recurse=false',
].flatMap((setting) => ['-c', setting]);

/**
 * Overrides any `.gitattributes` inside the tracked tree: `$GIT_DIR/info/attributes` wins over
 * in-tree files, so no `text`, `eol`, `filter` or `ident` can rewrite bytes on add or checkout.
 */
const NEUTRAL_ATTRIBUTES = '* -text -eol -crlf -filter -ident -working-tree-encoding -export-subst\n';

const IDENTITY = 'mcp-actors checkpoint';
const IDENTITY_EMAIL = 'checkpoints@mcp-actors.invalid';

export interface GitLocation {
  /** The private repository (`GIT_DIR`). */
  readonly gitDir: string;
  /** The tracked directory (`GIT_WORK_TREE`). */
  readonly workTree: string;
  /** The private index (`GIT_INDEX_FILE`); it persists, and its stat data (refreshed before a rollback's checkout and on reopen) lets git skip unchanged files. */
  readonly indexFile: string;
  /** A directory without git configuration, used as `HOME` and `XDG_CONFIG_HOME`. */
  readonly home: string;
}

export interface GitRunOptions {
  /** Written to git's stdin. */
  readonly input?: string | Buffer;
  /** Runs git under this umask (through `/bin/sh -c 'umask …; exec git'`), so checked-out modes are exact. */
  readonly umask?: number;
}

/** Runs one git command against a private repository; resolves to its stdout as bytes. */
export type Git = (args: readonly string[], options?: GitRunOptions) => Promise<Buffer>;

/** The process environment without any `GIT_*` variable, plus the private location and identity. */
export function gitEnvironment(location: GitLocation): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('GIT_')) env[name] = value;
  }
  return {
    ...env,
    GIT_DIR: location.gitDir,
    GIT_WORK_TREE: location.workTree,
    GIT_INDEX_FILE: location.indexFile,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    HOME: location.home,
    XDG_CONFIG_HOME: location.home,
    GIT_AUTHOR_NAME: IDENTITY,
    GIT_AUTHOR_EMAIL: IDENTITY_EMAIL,
    GIT_COMMITTER_NAME: IDENTITY,
    GIT_COMMITTER_EMAIL: IDENTITY_EMAIL,
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_LITERAL_PATHSPECS: '1',
    GIT_NO_REPLACE_OBJECTS: '1',
    LC_ALL: 'C',
  };
}

/**
 * A runner bound to one private repository. Failures reject with `CHECKPOINT_FAILED` carrying git's
 * arguments, exit code and stderr.
 *
 * @example
 * const git = createGit({ gitDir, workTree: root, indexFile, home });
 * const tree = (await git(['write-tree'])).toString().trim();
 */
export function createGit(location: GitLocation): Git {
  const env = gitEnvironment(location);
  return (args, options = {}) => {
    const full = [...GIT_CONFIG_FLAGS, ...args];
    const [command, argv] =
      options.umask === undefined
        ? ['git', full]
        : ['/bin/sh', ['-c', `umask ${options.umask.toString(8).padStart(3, '0')} && exec git "$@"`, 'git', ...full]];
    return runProcess(command, argv, env, args, options.input);
  };
}

/**
 * Creates an empty private repository at `location.gitDir`: no template (so no sample hooks), an
 * empty `info/exclude` and the neutral `info/attributes`.
 */
export async function initRepository(location: GitLocation): Promise<void> {
  const env = gitEnvironment(location);
  delete env.GIT_WORK_TREE;
  delete env.GIT_DIR;
  await runProcess('git', ['init', '--quiet', '--bare', '--template=', location.gitDir], env, ['init']);
  await mkdir(join(location.gitDir, 'info'), { recursive: true });
  await writeFile(join(location.gitDir, 'info', 'exclude'), '');
  await writeFile(join(location.gitDir, 'info', 'attributes'), NEUTRAL_ATTRIBUTES);
}

export { splitNul };

function runProcess(
  command: string,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  shownArgs: readonly string[],
  input?: string | Buffer,
): Promise<Buffer> {
  const label = `git ${shownArgs.slice(0, 4).join(' ')}`;
  return runGitProcess(argv, { command, env, input, errorCode: ErrorCode.CHECKPOINT_FAILED, label, shownArgs }).then(
    (result) => result.stdout,
  );
}
