/**
 * An `OAuthClientProvider` for the authorization-code flow with PKCE on a desktop or a terminal:
 * the authorization URL is handed to `openUrl` (print it, open a browser), and the code comes back
 * to a listener on a loopback port (RFC 8252 §7.3). The SDK does the rest — discovery, dynamic
 * registration (or a client-id metadata document, or pre-registered credentials), PKCE, the code
 * exchange and refreshes — and our HTTP transport finishes the flow with `takeAuthorizationCode()`.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { AuthorizationCodeSource } from './server-auth.js';
import { MemoryTokenStore, type StoredAuth, type TokenStore } from './token-store.js';

export interface LoopbackOAuthProviderOptions {
  /** The key of this server's entry in the store (default: the server name the CLI uses, or the url). */
  readonly key: string;
  /** Where client information and tokens are kept (default: in memory). */
  readonly store?: TokenStore;
  readonly clientName?: string;
  /** Asked for when neither the server's challenge nor its metadata names scopes. */
  readonly scope?: string;
  /** An https URL of a client-id metadata document (SEP-991), used where the server supports it. */
  readonly clientMetadataUrl?: string;
  /** Pre-registered credentials, for servers without dynamic registration. */
  readonly clientInformation?: OAuthClientInformationMixed;
  /** The loopback port of the redirect (default: the one registered before, else a free one). */
  readonly port?: number;
  /** Where the authorization URL goes: print it, open a browser (default: printed to stderr). */
  readonly openUrl?: (url: URL) => void | Promise<void>;
  /** How long to wait for the user to come back (default 5 minutes). */
  readonly authorizationTimeoutMs?: number;
}

const CALLBACK_PATH = '/callback';
const HOST = '127.0.0.1';

export class LoopbackOAuthProvider implements OAuthClientProvider, AuthorizationCodeSource {
  readonly clientMetadataUrl: string | undefined;
  private readonly store: TokenStore;
  private readonly key: string;
  private verifier: string | undefined;
  private expectedState: string | undefined;
  private pending: Promise<string> | undefined;
  private listener: Server | undefined;

  private constructor(
    private readonly options: LoopbackOAuthProviderOptions,
    readonly port: number,
  ) {
    this.store = options.store ?? new MemoryTokenStore();
    this.key = options.key;
    this.clientMetadataUrl = options.clientMetadataUrl;
  }

  /**
   * @example
   * const auth = await LoopbackOAuthProvider.create({ key: 'github', store: new FileTokenStore() });
   * const client = new McpClient({ name: 'github', url: 'https://api.example.com/mcp' }, { auth });
   */
  static async create(options: LoopbackOAuthProviderOptions): Promise<LoopbackOAuthProvider> {
    const store = options.store ?? new MemoryTokenStore();
    const stored = await store.load(options.key);
    const port = options.port ?? registeredPort(stored) ?? (await freePort());
    const provider = new LoopbackOAuthProvider({ ...options, store }, port);
    if (options.clientInformation && !stored?.clientInformation) await provider.saveClientInformation(options.clientInformation);
    return provider;
  }

  get redirectUrl(): string {
    return `http://${HOST}:${this.port}${CALLBACK_PATH}`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName ?? 'mcp-actors',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.options.scope ? { scope: this.options.scope } : {}),
    };
  }

  state(): string {
    this.expectedState = randomBytes(16).toString('base64url');
    return this.expectedState;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    return (await this.load()).clientInformation;
  }

  async saveClientInformation(clientInformation: OAuthClientInformationMixed): Promise<void> {
    await this.change({ clientInformation });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.load()).tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.change({ tokens, tokensSavedAt: Date.now() });
  }

  /** When the access token expires (epoch ms), if the server said. */
  async expiresAt(): Promise<number | undefined> {
    const { tokens, tokensSavedAt } = await this.load();
    return tokens?.expires_in !== undefined && tokensSavedAt !== undefined ? tokensSavedAt + tokens.expires_in * 1000 : undefined;
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.load()).discoveryState;
  }

  async saveDiscoveryState(discoveryState: OAuthDiscoveryState): Promise<void> {
    await this.change({ discoveryState });
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.verifier)
      throw new McpActorsError(
        ErrorCode.AUTH_FAILED,
        'no PKCE code verifier: the authorization was not started by this provider; log in again',
      );
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'all') this.verifier = undefined;
    if (scope === 'all') return this.store.delete(this.key);
    if (scope === 'client') await this.change({ clientInformation: undefined, tokens: undefined });
    if (scope === 'tokens') await this.change({ tokens: undefined, tokensSavedAt: undefined });
    if (scope === 'discovery') await this.change({ discoveryState: undefined });
  }

  /** Starts listening for the redirect, then hands the URL to `openUrl`. */
  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const code = this.listen(authorizationUrl.searchParams.get('state') ?? this.expectedState);
    this.pending = code;
    code.catch(() => undefined); // observed by whoever takes it
    const open = this.options.openUrl ?? ((url: URL) => void process.stderr.write(`Open this URL to authorize:\n  ${url.href}\n`));
    await open(authorizationUrl);
  }

  takeAuthorizationCode(): Promise<string> | undefined {
    const code = this.pending;
    this.pending = undefined;
    return code;
  }

  /** Stops listening (a flow under way then fails). */
  close(): void {
    this.listener?.close();
    this.listener?.closeAllConnections();
    this.listener = undefined;
  }

  private listen(state: string | undefined): Promise<string> {
    this.close();
    const timeoutMs = this.options.authorizationTimeoutMs ?? 300_000;
    return new Promise<string>((resolve, reject) => {
      const server = createServer((request, response) => {
        const url = new URL(request.url ?? '/', this.redirectUrl);
        if (url.pathname !== CALLBACK_PATH) {
          response.writeHead(404).end();
          return;
        }
        const code = url.searchParams.get('code');
        const error = url.searchParams.get('error');
        const stateMatches = state === undefined || url.searchParams.get('state') === state;
        const ok = code !== null && error === null && stateMatches;
        response.writeHead(ok ? 200 : 400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
        response.end(ok ? 'Authorization complete. You may close this window.\n' : 'Authorization failed. You may close this window.\n');
        finish();
        if (ok) resolve(code);
        else {
          const why = !stateMatches
            ? 'the state parameter did not match (a forged or stale redirect)'
            : `the authorization server answered ${error ?? 'without a code'}`;
          reject(
            new McpActorsError(ErrorCode.AUTH_FAILED, `authorization failed: ${why}; log in again`, {
              details: { oauthError: error ?? undefined },
            }),
          );
        }
      });
      const timer = setTimeout(() => {
        finish();
        reject(
          new McpActorsError(
            ErrorCode.AUTH_REQUIRED,
            `no authorization came back within ${timeoutMs} ms; open the URL and approve, or log in again`,
          ),
        );
      }, timeoutMs);
      timer.unref();
      const finish = (): void => {
        clearTimeout(timer);
        server.close();
        if (this.listener === server) this.listener = undefined;
      };
      server.on('error', (error) => {
        finish();
        reject(
          new McpActorsError(
            ErrorCode.AUTH_FAILED,
            `could not listen for the redirect on ${this.redirectUrl}: ${error.message}; pick another port`,
            { cause: error },
          ),
        );
      });
      server.unref();
      server.listen(this.port, HOST);
      this.listener = server;
    });
  }

  private async load(): Promise<StoredAuth> {
    return (await this.store.load(this.key)) ?? {};
  }

  private async change(patch: Partial<StoredAuth>): Promise<void> {
    const merged: Record<string, unknown> = { ...(await this.load()), ...patch };
    const next: StoredAuth = Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined));
    await this.store.save(this.key, next);
  }
}

/** The port of a loopback redirect registered before, so a stored registration stays valid. */
function registeredPort(stored: StoredAuth | undefined): number | undefined {
  const uris = (stored?.clientInformation as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  const first: unknown = Array.isArray(uris) ? uris[0] : undefined;
  if (typeof first !== 'string') return undefined;
  try {
    const url = new URL(first);
    return url.hostname === HOST && url.port !== '' ? Number(url.port) : undefined;
  } catch {
    return undefined;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, HOST, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
