/**
 * `agents validate`: loads agents.yaml as the runtime would and summarizes it; a file with
 * mistakes is a `ConfigError` that lists every one with its file:line:col (exit 1). Each stdio
 * server's program is checked to exist and be executable; nothing is spawned. A `${VAR}` that is
 * not set is a warning (its value cannot be judged yet) unless `--strict`. Settings that weaken the
 * confinement of a local server (`confine: false`, `confine.fallback`, an env entry naming HOME,
 * PATH, XDG_*, npm_config_* and the like) are warnings too; `--strict` makes them fail the run.
 */
import { readFile } from 'node:fs/promises';
import { checkAgentsFile, loadAgentsFile, type AgentsConfig } from '../config/agents-file.js';
import { placeProblems, parseSource } from '../config/source-locations.js';
import { type ConfigProblem, isConfigError } from '../errors/config-error.js';
import { confinementWarnings } from './confinement-warnings.js';
import { ExitCode } from './cli-io.js';
import { configFile, print, type CommandContext } from './command-context.js';
import { formatConfigSummary, summarizeConfig } from './format-config.js';

export async function validateCommand(context: CommandContext): Promise<number> {
  const path = configFile(context);
  const strict = context.flags.options.strict === true;
  const checked = await checkAgentsFile(path, { env: context.io.env, unsetVariables: strict ? 'error' : 'warn', checkCommands: true });
  const confinement = await placed(path, confinementWarnings(checked.config));
  const warnings = [...checked.warnings, ...confinement];
  for (const warning of warnings) {
    context.io.stderr.write(`warning: ${warning.path}: ${warning.problem}${warning.hint ? ` — ${warning.hint}` : ''}\n`);
  }
  const failed = strict && confinement.length > 0;
  const summary = summarizeConfig(await forDisplay(path, context), path);
  print(context, formatConfigSummary(summary), () => ({ ok: !failed, ...summary, warnings }));
  if (!failed) return ExitCode.OK;
  const count = confinement.length === 1 ? 'a setting weakens' : `${confinement.length} settings weaken`;
  context.io.stderr.write(`error: --strict: ${count} confinement (the warnings above); change them, or run without --strict\n`);
  return ExitCode.FAILED;
}

/** The warnings with the file:line:col of their keys. */
async function placed(path: string, found: Parameters<typeof placeProblems>[0]): Promise<ConfigProblem[]> {
  if (found.length === 0) return [];
  const source = parseSource(await readFile(path, 'utf8'), path);
  return placeProblems(found, source).problems;
}

/**
 * The configuration loaded once more with every `${VAR}` left as written, so the summary never
 * prints a secret the environment filled in. A value that is only valid once filled in (a url
 * built from a variable) makes this fail; the summary then shows the loaded values.
 */
async function forDisplay(path: string, context: CommandContext): Promise<AgentsConfig> {
  const asWritten = new Proxy<Record<string, string | undefined>>(
    {},
    { get: (_target, name) => (typeof name === 'string' && context.io.env[name] !== undefined ? `\${${name}}` : undefined) },
  );
  try {
    return await loadAgentsFile(path, { env: asWritten, unsetVariables: 'warn' });
  } catch (error) {
    if (!isConfigError(error)) throw error;
    return loadAgentsFile(path, { env: context.io.env, unsetVariables: 'warn' });
  }
}
