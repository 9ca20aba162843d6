/**
 * A small git runner for the sandbox: argument arrays (never a shell), a clean environment, output
 * as text, and failures as `McpActorsError(SANDBOX_FAILED)` carrying git's stderr.
 */
import { ErrorCode } from '../errors/codes.js';
import { confineCommand, type ConfinementPlan } from '../process/confinement/bwrap-command.js';
import { runGitProcess, splitNul } from './git-process.js';

/**
 * Variables that point git at a particular repository (`git rev-parse --local-env-vars`). Inherited
 * from a parent git (a hook, `git rebase --exec`) they would aim every command at the wrong place,
 * so they are dropped; the sandbox sets the ones it needs explicitly.
 */
const REPOSITORY_VARIABLES = [
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_CONFIG',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
  'GIT_OBJECT_DIRECTORY',
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_IMPLICIT_WORK_TREE',
  'GIT_GRAFT_FILE',
  'GIT_INDEX_FILE',
  'GIT_NO_REPLACE_OBJECTS',
  'GIT_REPLACE_REF_BASE',
  'GIT_PREFIX',
  'GIT_SHALLOW_FILE',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
] as const;

/**
 * Settings for every command: no hook at all (`core.hooksPath=/dev/null`: neither the user's hooks
 * nor a hook a server planted may run for a sandbox), no fsmonitor hook, no split index (it would
 * write `sharedindex.*` files into the host's `.git`), paths unquoted in diffs so non-ASCII names
 * read as themselves. The repository itself is never discovered from a directory a server can
 * write: commands on a sandbox pin `GIT_DIR` and `GIT_WORK_TREE` (see `sandbox-layout.ts`).
 */
export const SAFE_CONFIG: readonly string[] = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.splitIndex=false',
  '-c',
  'core.quotePath=false',
];

export interface GitRunOptions {
  readonly cwd: string;
  /** Extra variables (`GIT_INDEX_FILE`, `GIT_DIR`, …) on top of the cleaned environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Written to git's stdin. */
  readonly input?: string | Buffer;
  /** Exit codes that are answers rather than failures (e.g. `check-ignore` exits 1 for "no"). */
  readonly okExitCodes?: readonly number[];
  /** Runs git in this bubblewrap box (see `sandbox-layout.ts`, `snapshot`). */
  readonly confined?: ConfinementPlan;
}

export interface GitResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

/** The process environment without repository-pointing variables, with optional locks off. */
export function cleanGitEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const dropped: ReadonlySet<string> = new Set(REPOSITORY_VARIABLES);
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !dropped.has(name)));
  // GIT_OPTIONAL_LOCKS=0: `git diff`/`status` on the host must not refresh (rewrite) its index.
  return { ...env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', ...extra };
}

/** Runs `git <args>`; rejects with SANDBOX_FAILED unless the exit code is 0 or listed as ok. */
export async function runGit(args: readonly string[], options: GitRunOptions): Promise<GitResult> {
  const argv = [...SAFE_CONFIG, ...args];
  const env = cleanGitEnv(options.env);
  const run = options.confined ? confineCommand('git', argv, definedOnly(env), options.confined) : { command: 'git', args: argv, env };
  const result = await runGitProcess(run.args, {
    command: run.command,
    cwd: options.cwd,
    env: run.env,
    input: options.input,
    okExitCodes: options.okExitCodes,
    errorCode: ErrorCode.SANDBOX_FAILED,
    label: `git ${args.join(' ')} in ${options.cwd}`,
    shownArgs: args,
  });
  return { stdout: result.stdout.toString('utf8'), stderr: result.stderr, exitCode: result.exitCode };
}

/** An environment without its unset entries, as a spawn's `env` record. */
export const definedOnly = (env: NodeJS.ProcessEnv): Record<string, string> =>
  Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));

export { splitNul };
