/**
 * The commands of `agents` and their flags, as data: the parser checks a command line against
 * it and the help is written from it, so the two cannot disagree.
 */

export interface FlagSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** How the value is shown in help and hints: `<tenant>`. */
  readonly value?: string;
  readonly description: string;
}

export interface PositionalSpec {
  readonly name: string;
  readonly required: boolean;
  readonly description: string;
}

export interface CommandSpec {
  readonly name: string;
  readonly summary: string;
  readonly positionals: readonly PositionalSpec[];
  /** Flags of this command only; the global flags are allowed everywhere. */
  readonly flags: Readonly<Record<string, FlagSpec>>;
  /** Flags the command cannot run without. */
  readonly requiredFlags: readonly string[];
  readonly details: readonly string[];
  readonly examples: readonly string[];
}

export const GLOBAL_FLAGS = {
  file: { type: 'string', short: 'f', value: '<agents.yaml>', description: 'the configuration file (default ./agents.yaml)' },
  json: { type: 'boolean', description: 'print one JSON document on stdout instead of text' },
  debug: { type: 'boolean', description: 'print stack traces of errors' },
  help: { type: 'boolean', short: 'h', description: 'show help' },
} as const satisfies Record<string, FlagSpec>;

/** Only without a command: `agents --version`. */
export const VERSION_FLAG = { version: { type: 'boolean', short: 'V', description: 'print the version' } } as const satisfies Record<string, FlagSpec>;

const tenant: FlagSpec = { type: 'string', short: 't', value: '<tenant>', description: 'the tenant the actor works for (required)' };
const sandbox: FlagSpec = {
  type: 'string',
  short: 's',
  value: '<projectDir>',
  description: 'work in a sandbox of this project (a git worktree, or a copy outside git); the project is not touched',
};

export const COMMAND_SPECS = {
  validate: {
    name: 'validate',
    summary: 'check agents.yaml and summarize its servers, skills and actors',
    positionals: [],
    flags: {},
    requiredFlags: [],
    details: ['Exits 1 and lists every problem with its file:line:col when the file is not valid.'],
    examples: ['agents validate', 'agents validate --file config/agents.yaml --json'],
  },
  import: {
    name: 'import',
    summary: 'turn a claude_desktop_config.json into the servers: section of agents.yaml',
    positionals: [{ name: 'config.json', required: true, description: 'a JSON file with "mcpServers" (Claude Desktop, Claude Code, Cursor)' }],
    flags: {},
    requiredFlags: [],
    details: [
      'Prints YAML with snake_case keys and only the values that differ from the defaults.',
      '${VAR} references are kept as they are written; disabled servers are left out.',
    ],
    examples: ['agents import ~/Library/Application\\ Support/Claude/claude_desktop_config.json >> agents.yaml'],
  },
  tools: {
    name: 'tools',
    summary: "list an actor's tools with category, capabilities and why",
    positionals: [{ name: 'actor', required: true, description: 'an actor of agents.yaml' }],
    flags: { tenant, sandbox },
    requiredFlags: ['tenant'],
    details: ['Starts the servers of the actor\'s skills, lists the tools, and stops everything again.'],
    examples: ['agents tools triager --tenant acme', 'agents tools triager --tenant acme --sandbox . --json'],
  },
  call: {
    name: 'call',
    summary: 'call one tool as an actor and print the outcome',
    positionals: [
      { name: 'actor', required: true, description: 'an actor of agents.yaml' },
      { name: 'tool', required: true, description: 'the full tool name, <server>/<tool>' },
      { name: 'json-args', required: false, description: 'the arguments as a JSON object (default {})' },
    ],
    flags: {
      tenant,
      sandbox,
      apply: { type: 'boolean', description: 'when the call commits, write the sandbox changes into the project' },
      'timeout-ms': { type: 'string', value: '<ms>', description: 'deadline of the call in milliseconds (default 60000)' },
      yes: { type: 'boolean', short: 'y', description: 'approve execute tools without asking' },
    },
    requiredFlags: ['tenant'],
    details: [
      'Execute tools of an actor whose policy is "ask" are approved on the terminal, unless --yes.',
      'With --sandbox the diff of the sandbox is printed; --apply writes it into the project.',
      'Exits 0 when the call committed, 1 otherwise, 130 on Ctrl+C (after stopping every server).',
    ],
    examples: [
      'agents call triager fixture/echo \'{"message":"hi"}\' --tenant acme --yes',
      'agents call triager files/write_file \'{"path":"NOTES.md","content":"hi"}\' --tenant acme --sandbox . --apply',
    ],
  },
  status: {
    name: 'status',
    summary: "start an actor's servers once and show their state",
    positionals: [{ name: 'actor', required: true, description: 'an actor of agents.yaml' }],
    flags: { tenant, sandbox },
    requiredFlags: ['tenant'],
    details: ['Shows name, tenant, state, pid, restarts, last error and uptime of each server; exits 1 when a server did not start.'],
    examples: ['agents status triager --tenant acme'],
  },
  auth: {
    name: 'auth',
    summary: 'log in to a remote server with OAuth (authorization code + PKCE), log out, or show the login',
    positionals: [
      { name: 'action', required: true, description: 'login, logout or status' },
      { name: 'server', required: true, description: 'a url server of agents.yaml' },
    ],
    flags: {
      'token-file': { type: 'string', value: '<path>', description: 'where tokens are kept (default $MCP_ACTORS_AUTH_FILE or ~/.config/mcp-actors/auth.json, mode 600)' },
      port: { type: 'string', value: '<port>', description: 'the loopback port of the redirect (default: the one registered before, else a free one)' },
    },
    requiredFlags: [],
    details: [
      'login prints the authorization URL (and opens a browser on a terminal, not under CI), then waits for the redirect on 127.0.0.1.',
      'Tokens are refreshed when they expire; no token is ever printed.',
    ],
    examples: ['agents auth login linear', 'agents auth status linear --json', 'agents auth logout linear'],
  },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMAND_SPECS;
export const COMMAND_NAMES = Object.keys(COMMAND_SPECS) as CommandName[];

export function isCommandName(word: string): word is CommandName {
  return Object.hasOwn(COMMAND_SPECS, word);
}

/** How a positional is shown: `<actor>` or `[json-args]`. */
export function positionalUsage(positional: PositionalSpec): string {
  return positional.required ? `<${positional.name}>` : `[${positional.name}]`;
}
