/**
 * `agents validate`: loads agents.yaml as the runtime would and summarizes it; a file with
 * mistakes is a `ConfigError` that lists every one with its file:line:col (exit 1). Each stdio
 * server's program is checked to exist and be executable; nothing is spawned. A `${VAR}` that is
 * not set is a warning (its value cannot be judged yet) unless `--strict`.
 */
import { checkAgentsFile, loadAgentsFile, type AgentsConfig } from '../config/agents-file.js';
import { isConfigError } from '../errors/config-error.js';
import { ExitCode } from './cli-io.js';
import { configFile, print, type CommandContext } from './command-context.js';
import { formatConfigSummary, summarizeConfig } from './format-config.js';

export async function validateCommand(context: CommandContext): Promise<number> {
  const path = configFile(context);
  const strict = context.flags.options.strict === true;
  const { warnings } = await checkAgentsFile(path, { env: context.io.env, unsetVariables: strict ? 'error' : 'warn', checkCommands: true });
  for (const warning of warnings) {
    context.io.stderr.write(`warning: ${warning.path}: ${warning.problem}${warning.hint ? ` — ${warning.hint}` : ''}\n`);
  }
  const summary = summarizeConfig(await forDisplay(path, context), path);
  print(context, formatConfigSummary(summary), () => ({ ok: true, ...summary, warnings }));
  return ExitCode.OK;
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
