/**
 * `agents init`: a commented starter agents.yaml that validates as written, with the commands
 * that fill it in. Never overwrites a file.
 */
import { isAbsolute, resolve } from 'node:path';
import { readSnapshot, replaceFile } from './atomic-file.js';
import { ExitCode } from './cli-io.js';
import { configFile, type CommandContext } from './command-context.js';
import { editError } from './edit-session.js';

export const STARTER_FILE = `# agents.yaml: the MCP servers, skills and actors of mcp-actors.
# Check it with: agents validate. Keys are snake_case.
# \${NAME} is read from the environment when the file is loaded (keep secrets there, not here);
# \${SANDBOX_ROOT} and \${TENANT} are filled in when a server starts for a sandbox and a tenant.
# Relative paths (args, cwd, a command with a slash) are read from the folder of this file.

# MCP servers, keyed by name. Add one with
#   agents tool add memory --command npx --arg -y --arg @modelcontextprotocol/server-memory
# or bring those of Claude Desktop or Cursor with: agents import <claude_desktop_config.json>
servers:
  # memory:
  #   command: npx
  #   args: [-y, "@modelcontextprotocol/server-memory"]
  #   env: { API_KEY: "\${API_KEY}" }
  # docs:
  #   url: http://127.0.0.1:3000/mcp
  #   headers: { Authorization: "Bearer \${DOCS_TOKEN}" }

# Capability overrides per tool, keyed by "<server>/<tool>", for tools whose annotations say too little.
tools:
  # memory/delete_entities:
  #   overrides: { destructive: true }

# Skills: the tools of some servers, kept or left out by name or glob. Add one with
#   agents skill add notes --server memory --include "read_*"
skills:

# Actors: who uses which skills, and whether their writing tools need approval (allow | ask | deny).
#   agents actor add helper --skill notes --execute ask
actors:
`;

export async function initCommand(context: CommandContext): Promise<number> {
  const path = configFile(context);
  const snapshot = await readSnapshot(isAbsolute(path) ? path : resolve(process.cwd(), path));
  if (snapshot.text !== undefined) throw editError('DUPLICATE_NAME', `${path} exists already; edit it, or name a new file with --file`);
  await replaceFile(snapshot, STARTER_FILE);
  context.io.stdout.write(`wrote ${path}; next: agents tool add <name> --command <program> (agents tool add --help)\n`);
  return ExitCode.OK;
}
