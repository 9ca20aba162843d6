/**
 * `agents import <claude_desktop_config.json>`: the `mcpServers` of Claude Desktop (and Claude
 * Code, Cursor, Windsurf) as the `servers:` section of an agents.yaml, on stdout.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { isRecord } from '../config/config-keys.js';
import { parseMcpServersJson } from '../config/mcp-servers-json.js';
import { ConfigError } from '../errors/config-error.js';
import { messageOf } from '../errors/mcp-actors-error.js';
import { ExitCode } from './cli-io.js';
import { pathFrom, print, type CommandContext } from './command-context.js';
import { literalSecrets, serversSection, serversYaml } from './servers-yaml.js';

export async function importCommand(context: CommandContext): Promise<number> {
  const written = context.positionals[0] ?? '';
  const path = pathFrom(context, written);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const problem = `${written}: cannot be read (${messageOf(error)})`;
    throw new ConfigError([{ path: '', problem, hint: 'name the JSON file that holds "mcpServers"' }], { subject: `file ${written}`, cause: error });
  }
  // `${VAR}` references are kept as written, for the agents.yaml to fill in when it is loaded:
  // `$${` is the escape for a literal `${`, so the import neither needs the variables set nor
  // copies their values (secrets) into its output.
  const servers = parseMcpServersJson(text.replaceAll('${', () => '$${'), { file: written });
  const section = serversSection(servers);
  const disabled = disabledServers(text);
  const comments = [`servers imported from ${basename(written)} by agents import`];
  if (disabled.length > 0) comments.push(`left out (disabled): ${disabled.join(', ')}`);
  print(context, serversYaml(section, comments), () => ({ servers: section, disabled }));
  const secrets = literalSecrets(section);
  if (secrets.length > 0) {
    context.io.stderr.write(
      `note: ${secrets.join(', ')} ${secrets.length === 1 ? 'holds a literal value' : 'hold literal values'}; ` +
        'if secret, write "${NAME}" instead and set NAME in the environment, so the secret stays out of agents.yaml\n',
    );
  }
  return ExitCode.OK;
}

/** The servers the file marks `"disabled": true` (the parser leaves them out). */
function disabledServers(text: string): string[] {
  const data: unknown = JSON.parse(text.replace(/^\uFEFF/, ''));
  if (!isRecord(data) || !isRecord(data.mcpServers)) return [];
  const entries = data.mcpServers;
  return Object.keys(entries).filter((name) => {
    const entry = entries[name];
    return isRecord(entry) && entry.disabled === true;
  });
}
