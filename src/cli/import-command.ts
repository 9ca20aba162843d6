/**
 * `agents import <claude_desktop_config.json|.cursor/mcp.json|.mcp.json>`: adds the `mcpServers`
 * of Claude Desktop (and Claude Code, Cursor, Windsurf) to agents.yaml, keeping the file's
 * comments and order. A name that exists is refused unless `--replace`; literal secrets become
 * `${VAR}` references and the `export` lines that set them are printed. `--dry-run` prints the
 * `servers:` section instead of writing.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { isRecord } from '../config/file-keys.js';
import { parseMcpServersJson } from '../config/mcp-servers-json.js';
import { ConfigError } from '../errors/config-error.js';
import { messageOf } from '../errors/mcp-actors-error.js';
import { ExitCode } from './cli-io.js';
import { pathFrom, print, type CommandContext } from './command-context.js';
import { editAgentsFile, editError } from './edit-session.js';
import { type ServersSection, serversSection, serversYaml } from './servers-yaml.js';
import { exportLines as exportLinesOf, exportNote, referencedVariables, referencesForSecrets } from './secret-references.js';
import { checkName } from './tool-commands.js';

export async function importCommand(context: CommandContext): Promise<number> {
  const written = context.positionals[0] ?? '';
  const path = pathFrom(context, written);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const problem = `${written}: cannot be read (${messageOf(error)})`;
    throw new ConfigError([{ path: '', problem, hint: 'name the JSON file that holds "mcpServers"' }], {
      subject: `file ${written}`,
      cause: error,
    });
  }
  // `${VAR}` references are kept as written, for the agents.yaml to fill in when it is loaded:
  // `$${` is the escape for a literal `${`, so the import neither needs the variables set nor
  // copies their values into its output.
  const servers = parseMcpServersJson(
    text.replaceAll('${', () => '$${'),
    { file: written },
  );
  const prefix = typeof context.flags.options.prefix === 'string' ? context.flags.options.prefix : '';
  const named: ServersSection = Object.fromEntries(
    Object.entries(serversSection(servers)).map(([name, entry]) => [`${prefix}${name}`, entry]),
  );
  for (const name of Object.keys(named)) checkName('server', name);
  const { section, exports } = referencesForSecrets(named);
  const disabled = disabledServers(text);
  const comments = [`servers imported from ${basename(written)} by agents import`];
  if (disabled.length > 0) comments.push(`left out (disabled): ${disabled.join(', ')}`);
  let exportLines = exportLinesOf(exports);

  if (context.flags.options['dry-run'] === true) {
    print(context, serversYaml(section, comments) + exportNote(exportLines), () => ({ servers: section, disabled, exports: exportLines }));
    return ExitCode.OK;
  }
  const into = typeof context.flags.options.into === 'string' ? context.flags.options.into : undefined;
  const target: CommandContext = into === undefined ? context : { ...context, flags: { ...context.flags, file: into } };
  const replace = context.flags.options.replace === true;
  const names = Object.keys(named);
  let replaced: string[] = [];
  // The summary goes to stdout after the write (editAgentsFile prints the message line).
  await editAgentsFile(target, 'empty', (data, file) => {
    replaced = names.filter((name) => Object.hasOwn(data.servers, name));
    if (replaced.length > 0 && !replace) {
      const many = replaced.length > 1;
      throw editError(
        'DUPLICATE_NAME',
        `server${many ? 's' : ''} ${replaced.join(', ')} ${many ? 'are' : 'is'} already in ${file}; nothing was imported: run again with --replace, or --prefix <p> to import under other names`,
      );
    }
    // A variable the file already references (for a server kept) is not reused for another secret.
    const kept = Object.fromEntries(Object.entries(data.servers).filter(([name]) => !names.includes(name)));
    const withReferences = referencesForSecrets(named, referencedVariables(kept));
    exportLines = exportLinesOf(withReferences.exports);
    const added = names.filter((name) => !replaced.includes(name));
    const parts = [];
    if (added.length > 0) parts.push(`added ${added.join(', ')}`);
    if (replaced.length > 0) parts.push(`replaced ${replaced.join(', ')}`);
    const left = disabled.length > 0 ? `; left out (disabled): ${disabled.join(', ')}` : '';
    return {
      edits: names.map((name) => ({ op: 'set', path: ['servers', name], value: withReferences.section[name] })),
      message: context.flags.json
        ? ''
        : `${names.length === 0 ? 'no servers to import' : parts.join('; ')} in ${file} from ${basename(written)}${left}${exportNote(exportLines)}`,
    };
  });
  if (context.flags.json) {
    context.io.stdout.write(
      `${JSON.stringify({ ok: true, added: names.filter((n) => !replaced.includes(n)), replaced, disabled, exports: exportLines }, null, 2)}\n`,
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
