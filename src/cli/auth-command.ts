/**
 * `agents auth login|logout|status <server>`: OAuth for a url server of agents.yaml. Login runs
 * the authorization-code flow with PKCE through `LoopbackOAuthProvider` (the URL is printed, and
 * opened in a browser only on a terminal outside CI), the handshake proving the tokens work; the
 * tokens go to a file of mode 600 that later runs read and refresh. Nothing secret is printed.
 */
import { spawn } from 'node:child_process';
import { LoopbackOAuthProvider } from '../auth/loopback-oauth-provider.js';
import { FileTokenStore, defaultTokenFile } from '../auth/token-store.js';
import { McpClient } from '../client/mcp-client.js';
import { loadAgentsFile } from '../config/agents-file.js';
import { ExitCode, type CliIo } from './cli-io.js';
import { configFile, pathFrom, print, type CommandContext } from './command-context.js';
import { UsageError } from './usage-error.js';

const ACTIONS = ['login', 'logout', 'status'] as const;

export async function authCommand(context: CommandContext): Promise<number> {
  const [action = '', server = ''] = context.positionals;
  if (!(ACTIONS as readonly string[]).includes(action))
    throw new UsageError(`agents auth ${action}: write agents auth login|logout|status <server>`);
  const config = await loadAgentsFile(configFile(context), { env: context.io.env });
  const serverConfig = config.servers[server];
  if (!serverConfig || serverConfig.transport === 'stdio' || !serverConfig.url) {
    const remote = Object.values(config.servers)
      .filter((entry) => entry.url !== undefined)
      .map((entry) => entry.name);
    throw new UsageError(`"${server}" is not a url server of ${configFile(context)}; remote servers: ${remote.join(', ') || 'none'}`);
  }
  const file = context.flags.tokenFile ? pathFrom(context, context.flags.tokenFile) : defaultTokenFile(context.io.env);
  const store = new FileTokenStore(file);
  if (action === 'logout') {
    await store.delete(server);
    print(context, `logged out of ${server} (${file})\n`, () => ({ ok: true, server, tokenFile: file, loggedIn: false }));
    return ExitCode.OK;
  }
  if (action === 'status') {
    const stored = await store.load(server);
    const provider = await LoopbackOAuthProvider.create({ key: server, store });
    const expiresAt = await provider.expiresAt();
    const report = {
      server,
      tokenFile: file,
      loggedIn: stored?.tokens !== undefined,
      expiresAt: expiresAt === undefined ? undefined : new Date(expiresAt).toISOString(),
      refreshable: stored?.tokens?.refresh_token !== undefined,
      scope: stored?.tokens?.scope,
    };
    const text = report.loggedIn
      ? `${server}: logged in${report.expiresAt ? `, token expires ${report.expiresAt}` : ''}${report.refreshable ? ', refreshable' : ''} (${file})\n`
      : `${server}: not logged in; run agents auth login ${server}\n`;
    print(context, text, () => ({ ok: true, ...report }));
    return report.loggedIn ? ExitCode.OK : ExitCode.FAILED;
  }
  const port = context.flags.port === undefined ? undefined : Number(context.flags.port);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536))
    throw new UsageError(`--port must be a port number, got "${context.flags.port}"`);
  const provider = await LoopbackOAuthProvider.create({
    key: server,
    store,
    ...(port === undefined ? {} : { port }),
    openUrl: (url) => showUrl(context.io, url),
  });
  const client = new McpClient({ ...serverConfig, restart: 'temporary', startTimeoutMs: 300_000 }, { auth: provider });
  try {
    await client.start();
  } finally {
    await client.dispose();
    provider.close();
  }
  print(context, `logged in to ${server}; tokens kept in ${file}\n`, () => ({ ok: true, server, tokenFile: file, loggedIn: true }));
  return ExitCode.OK;
}

function showUrl(io: CliIo, url: URL): void {
  io.stderr.write(`Open this URL in a browser to authorize:\n\n  ${url.href}\n\nWaiting for the redirect...\n`);
  const terminal = (io.stderr as { isTTY?: boolean }).isTTY === true;
  if (!terminal || io.env.CI) return;
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url.href]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url.href]]
        : ['xdg-open', [url.href]];
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.on('error', () => undefined); // no browser at hand: the printed URL is enough
  child.unref();
}

/** The providers of every server logged in with `agents auth login`, for the other commands' runtime. */
export async function storedAuth(
  context: CommandContext,
): Promise<((server: { name: string }) => LoopbackOAuthProvider | undefined) | undefined> {
  const file = context.flags.tokenFile ? pathFrom(context, context.flags.tokenFile) : defaultTokenFile(context.io.env);
  const store = new FileTokenStore(file);
  const keys = await store.keys().catch(() => []);
  if (keys.length === 0) return undefined;
  const providers = new Map<string, LoopbackOAuthProvider>();
  for (const key of keys)
    providers.set(key, await LoopbackOAuthProvider.create({ key, store, openUrl: (url) => showUrl(context.io, url) }));
  return (server) => providers.get(server.name);
}
