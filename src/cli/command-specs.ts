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
  /** May be given more than once; the values are kept in order. */
  readonly multiple?: boolean;
  /** Its value may start with "-" (`--arg -y`): it is never taken for a missing value. */
  readonly dashValue?: boolean;
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
export const VERSION_FLAG = { version: { type: 'boolean', short: 'V', description: 'print the version' } } as const satisfies Record<
  string,
  FlagSpec
>;

const inspect: FlagSpec = {
  type: 'boolean',
  description: 'watch the supervision tree in the Stately inspector (a server on 127.0.0.1; the URL is printed)',
};
const inspectFor: FlagSpec = {
  type: 'string',
  value: '<ms>',
  description: 'with the inspector on, keep serving it this many milliseconds after the tour instead of until Ctrl+C',
};
const tenant: FlagSpec = {
  type: 'string',
  short: 't',
  value: '<tenant>',
  description: 'the tenant the actor works for (default: default_tenant in agents.yaml, or local)',
};
const sandbox: FlagSpec = {
  type: 'string',
  short: 's',
  value: '<projectDir>',
  description: 'work in a sandbox of this project (a git worktree, or a copy outside git); the project is not touched',
};

export const COMMAND_SPECS = {
  demo: {
    name: 'demo',
    summary: 'a narrated tour of supervision and the sandboxed runtime (what npm start runs)',
    positionals: [],
    flags: { inspect, 'inspect-for': inspectFor },
    requiredFlags: [],
    details: [
      'Needs no agents.yaml; ends by itself in under a minute and leaves no process behind.',
      'With --inspect it keeps the runtime and its inspector running after the tour until Ctrl+C (or --inspect-for <ms>).',
    ],
    examples: ['agents demo', 'agents demo --inspect', 'agents demo --inspect-for 60000'],
  },
  validate: {
    name: 'validate',
    summary: 'check agents.yaml and summarize its servers, skills and actors',
    positionals: [],
    flags: {
      strict: { type: 'boolean', description: 'an unset ${VAR} is an error, and a setting that weakens confinement fails the run' },
    },
    requiredFlags: [],
    details: [
      'Exits 1 and lists every problem with its file:line:col when the file is not valid.',
      "Checks that each stdio server's command exists and is executable; nothing is spawned.",
      'A ${VAR} that is not set is a warning (its value cannot be judged yet); --strict makes it an error.',
      'Warns about what weakens the confinement of a local server: confine: false, confine.fallback: true, and env entries such as HOME, PATH, XDG_* or npm_config_* (not used to decide confinement); --strict makes these fail the run (exit 1).',
    ],
    examples: ['agents validate', 'agents validate --file config/agents.yaml --json', 'agents validate --strict'],
  },
  import: {
    name: 'import',
    summary: 'add the servers of a claude_desktop_config.json, .cursor/mcp.json or .mcp.json to agents.yaml',
    positionals: [
      { name: 'config.json', required: true, description: 'a JSON file with "mcpServers" (Claude Desktop, Claude Code, Cursor)' },
    ],
    flags: {
      into: { type: 'string', value: '<agents.yaml>', description: 'the file to add the servers to (default --file, ./agents.yaml)' },
      prefix: { type: 'string', value: '<prefix>', description: 'put this before every imported server name' },
      replace: { type: 'boolean', description: 'replace a server of the same name instead of refusing' },
      'dry-run': { type: 'boolean', description: 'print the servers: section instead of writing the file' },
    },
    requiredFlags: [],
    details: [
      'Adds the servers to the file (created when missing); comments and order of the file are kept.',
      'A name that exists is refused unless --replace. Disabled servers are left out.',
      'Literal values of secret-looking env/headers entries become ${VAR} references; the export lines to run are printed.',
    ],
    examples: [
      'agents import ~/Library/Application\\ Support/Claude/claude_desktop_config.json',
      'agents import .cursor/mcp.json --into agents.yaml --prefix cursor-',
    ],
  },
  init: {
    name: 'init',
    summary: 'write a commented starter agents.yaml',
    positionals: [],
    flags: {},
    requiredFlags: [],
    details: ['Refuses when the file exists.'],
    examples: ['agents init', 'agents init --file config/agents.yaml'],
  },
  'tool add': {
    name: 'tool add',
    summary: 'add an MCP server to agents.yaml (validated first)',
    positionals: [{ name: 'name', required: true, description: 'the server name' }],
    flags: {
      command: { type: 'string', value: '<program>', description: 'stdio: the program to spawn' },
      arg: { type: 'string', value: '<arg>', multiple: true, dashValue: true, description: 'stdio: one argument (repeat for more)' },
      env: { type: 'string', value: '<K=V>', multiple: true, description: 'stdio: one environment variable (repeat for more)' },
      cwd: { type: 'string', value: '<dir>', description: 'stdio: working directory (default the folder of agents.yaml)' },
      url: { type: 'string', value: '<url>', description: 'sse / streamable-http: the endpoint' },
      header: { type: 'string', value: '<K=V>', multiple: true, description: 'an HTTP header (repeat for more)' },
      transport: {
        type: 'string',
        value: '<stdio|sse|streamable-http>',
        description: 'default: stdio with --command, streamable-http with --url',
      },
      check: { type: 'boolean', description: 'start the server once and list its tools before writing' },
    },
    requiredFlags: [],
    details: [
      'Give --command or --url. Nothing is written when the entry or the resulting file is not valid.',
      'Literal values of secret-looking --env/--header entries are written as ${VAR} references; the export lines to run are printed.',
    ],
    examples: [
      'agents tool add memory --command npx --arg -y --arg @modelcontextprotocol/server-memory',
      'agents tool add docs --url http://127.0.0.1:3000/mcp --header "Authorization=Bearer ${DOCS_TOKEN}"',
    ],
  },
  'tool remove': {
    name: 'tool remove',
    summary: 'remove an MCP server from agents.yaml',
    positionals: [{ name: 'name', required: true, description: 'the server name' }],
    flags: { force: { type: 'boolean', description: 'also unlink it from the skills that use it (they are named)' } },
    requiredFlags: [],
    details: ['Refuses while a skill uses the server, unless --force.'],
    examples: ['agents tool remove memory'],
  },
  'tool list': {
    name: 'tool list',
    summary: 'list the MCP servers of agents.yaml',
    positionals: [],
    flags: {},
    requiredFlags: [],
    details: [],
    examples: ['agents tool list', 'agents tool list --json'],
  },
  'skill add': {
    name: 'skill add',
    summary: 'add a skill over one server to agents.yaml',
    positionals: [{ name: 'name', required: true, description: 'the skill name' }],
    flags: {
      server: { type: 'string', value: '<server>', description: 'the server whose tools the skill includes (required)' },
      include: { type: 'string', value: '<glob>', multiple: true, description: 'keep only tools matching this (repeat for more)' },
      exclude: { type: 'string', value: '<glob>', multiple: true, description: 'leave out tools matching this (repeat for more)' },
      override: {
        type: 'string',
        value: '<tool:read_only|writes|destructive>',
        multiple: true,
        description: 'declare what a tool does (repeat)',
      },
      required: { type: 'boolean', description: 'activation fails when the server cannot start' },
      description: { type: 'string', value: '<text>', description: 'what the skill is for' },
    },
    requiredFlags: ['server'],
    details: [],
    examples: [
      'agents skill add notes --server memory --include "read_*" --include delete_entities --override delete_entities:destructive --required',
    ],
  },
  'skill remove': {
    name: 'skill remove',
    summary: 'remove a skill from agents.yaml',
    positionals: [{ name: 'name', required: true, description: 'the skill name' }],
    flags: { force: { type: 'boolean', description: 'also unlink it from the actors that use it (they are named)' } },
    requiredFlags: [],
    details: ['Refuses while an actor uses the skill, unless --force.'],
    examples: ['agents skill remove notes'],
  },
  'skill list': {
    name: 'skill list',
    summary: 'list the skills of agents.yaml',
    positionals: [],
    flags: {},
    requiredFlags: [],
    details: [],
    examples: ['agents skill list --json'],
  },
  'actor add': {
    name: 'actor add',
    summary: 'add an actor to agents.yaml',
    positionals: [{ name: 'name', required: true, description: 'the actor name' }],
    flags: {
      skill: { type: 'string', value: '<skill>', multiple: true, description: 'a skill of the actor (repeat for more)' },
      execute: { type: 'string', value: '<allow|ask|deny>', description: 'tool calls that need approval (default ask)' },
      description: { type: 'string', value: '<text>', description: 'what the actor is for' },
    },
    requiredFlags: [],
    details: [],
    examples: ['agents actor add helper --skill notes --execute ask'],
  },
  'actor remove': {
    name: 'actor remove',
    summary: 'remove an actor from agents.yaml',
    positionals: [{ name: 'name', required: true, description: 'the actor name' }],
    flags: {},
    requiredFlags: [],
    details: [],
    examples: ['agents actor remove helper'],
  },
  'actor list': {
    name: 'actor list',
    summary: 'list the actors of agents.yaml',
    positionals: [],
    flags: {},
    requiredFlags: [],
    details: [],
    examples: ['agents actor list'],
  },
  tools: {
    name: 'tools',
    summary: "list an actor's tools with category, capabilities and why",
    positionals: [{ name: 'actor', required: true, description: 'an actor of agents.yaml' }],
    flags: { tenant, sandbox },
    requiredFlags: [],
    details: ["Starts the servers of the actor's skills, lists the tools, and stops everything again."],
    examples: [
      'agents tools tester --file node_modules/mcp-actors/examples/agents.yaml',
      'agents tools assistant --file node_modules/mcp-actors/examples/agents.yaml --sandbox . --json',
    ],
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
    requiredFlags: [],
    details: [
      'Execute tools of an actor whose policy is "ask" are approved on the terminal, unless --yes.',
      'With --sandbox the diff of the sandbox is printed; --apply writes it into the project.',
      'Exits 0 when the call committed, 1 otherwise, 130 on Ctrl+C (after stopping every server).',
    ],
    examples: [
      'agents call tester everything/echo \'{"message":"hi"}\' --file node_modules/mcp-actors/examples/agents.yaml',
      'agents call assistant files/read_text_file \'{"path":"README.md"}\' --file node_modules/mcp-actors/examples/agents.yaml --sandbox . --tenant acme',
    ],
  },
  status: {
    name: 'status',
    summary: "start an actor's servers and show their state (once, or live with --watch)",
    positionals: [{ name: 'actor', required: true, description: 'an actor of agents.yaml' }],
    flags: {
      tenant,
      sandbox,
      inspect,
      watch: { type: 'boolean', short: 'w', description: 'keep the servers up and show their state live until Ctrl+C' },
    },
    requiredFlags: [],
    details: [
      'Shows state, pid, uptime, restarts, next restart, calls in flight, last error and last stderr line of each server.',
      'Once: exits 1 when a server did not start. With --watch: a table redrawn in place on a terminal, one line per change',
      'when piped, newline-delimited JSON events with --json; Ctrl+C stops every server it started and exits 130.',
    ],
    examples: [
      'agents status tester --file node_modules/mcp-actors/examples/agents.yaml',
      'agents status tester --file node_modules/mcp-actors/examples/agents.yaml --watch',
    ],
  },
  up: {
    name: 'up',
    summary: "start an actor's servers and watch them live (agents status --watch)",
    positionals: [{ name: 'actor', required: true, description: 'an actor of agents.yaml' }],
    flags: { tenant, sandbox, inspect },
    requiredFlags: [],
    details: ['The same as agents status <actor> --watch. Ctrl+C stops every server it started and exits 130.'],
    examples: ['agents up tester --file node_modules/mcp-actors/examples/agents.yaml'],
  },
  serve: {
    name: 'serve',
    summary: 'serve a domain server module (defineServer) over stdio or streamable HTTP',
    positionals: [
      { name: 'module', required: true, description: 'a JavaScript module exporting a defineServer() result; path#name picks one export' },
      { name: 'transport', required: false, description: 'stdio (default), http (127.0.0.1, a free port) or http://<host>:<port>[/path]' },
    ],
    flags: {
      tenant: {
        type: 'string',
        short: 't',
        value: '<tenant>',
        description: 'the tenant served (stdio: else MCP_ACTORS_TENANT; http: single-tenant mode)',
      },
    },
    requiredFlags: [],
    details: [
      'Over stdio one process serves one tenant: --tenant, or MCP_ACTORS_TENANT (agents.yaml: env: { MCP_ACTORS_TENANT: "${TENANT}" }).',
      'Over HTTP it runs in single-tenant mode (no authentication); embed serveOverHttp with authenticate for several tenants.',
      'Runs until Ctrl+C (or, over stdio, the end of stdin); the startup line goes to stderr.',
    ],
    examples: ['agents serve ./roster.mjs --tenant acme', 'agents serve ./roster.mjs#roster http://127.0.0.1:8080 --tenant acme'],
  },
  auth: {
    name: 'auth',
    summary: 'log in to a remote server with OAuth (authorization code + PKCE), log out, or show the login',
    positionals: [
      { name: 'action', required: true, description: 'login, logout or status' },
      { name: 'server', required: true, description: 'a url server of agents.yaml' },
    ],
    flags: {
      'token-file': {
        type: 'string',
        value: '<path>',
        description: 'where tokens are kept (default $MCP_ACTORS_AUTH_FILE or ~/.config/mcp-actors/auth.json, mode 600)',
      },
      port: {
        type: 'string',
        value: '<port>',
        description: 'the loopback port of the redirect (default: the one registered before, else a free one)',
      },
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

/** Words that take a subcommand: `agents tool add`. */
export const COMMAND_GROUPS = ['tool', 'skill', 'actor'] as const;

/** The first words a command line may start with, in help order. */
export const COMMAND_WORDS: readonly string[] = [...new Set(COMMAND_NAMES.map((name) => name.split(' ')[0] ?? name))];

/** `tool` → `add, remove, list`. */
export function subcommandsOf(group: string): string[] {
  return COMMAND_NAMES.flatMap((name) => (name.startsWith(`${group} `) ? [name.slice(group.length + 1)] : []));
}

/** How a positional is shown: `<actor>` or `[json-args]`. */
export function positionalUsage(positional: PositionalSpec): string {
  return positional.required ? `<${positional.name}>` : `[${positional.name}]`;
}
