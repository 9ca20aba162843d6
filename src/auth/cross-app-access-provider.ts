/**
 * An `OAuthClientProvider` for Cross-App Access (SEP-990, "enterprise-managed authorization"): the
 * user's identity provider vouches for them, so no browser is involved. The SDK discovers the
 * authorization server; this provider then exchanges the IdP's ID token for an identity assertion
 * grant (ID-JAG, RFC 8693 token exchange at the IdP, audience = the authorization server, resource
 * = the MCP server) and presents it as a JWT bearer grant (RFC 7523) to the authorization server,
 * authenticated with the client's own credentials.
 */
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { SecretReporter } from './secret-recording-provider.js';

export interface CrossAppAccessProviderOptions {
  /** The client's id and secret at the MCP server's authorization server. */
  readonly clientId: string;
  readonly clientSecret: string;
  /** The IdP's token endpoint, where the ID token is exchanged. */
  readonly idpTokenEndpoint: string;
  /** The client's id at the IdP. */
  readonly idpClientId: string;
  /** The user's ID token from the IdP (or a function that fetches a fresh one). */
  readonly idToken: string | (() => string | Promise<string>);
  readonly scope?: string;
  readonly clientName?: string;
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export class CrossAppAccessProvider implements OAuthClientProvider, SecretReporter {
  private info: OAuthClientInformationMixed;
  private record: (value: string) => void = () => undefined;
  private saved: OAuthTokens | undefined;
  private discovered: OAuthDiscoveryState | undefined;

  constructor(private readonly options: CrossAppAccessProviderOptions) {
    this.info = { client_id: options.clientId, client_secret: options.clientSecret };
  }

  /** The client secret and the ID token (each fresh one too) are secret wherever they show up. */
  reportSecrets(record: (value: string) => void): void {
    this.record = record;
    record(this.options.clientSecret);
    if (typeof this.options.idToken === 'string') record(this.options.idToken);
  }

  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName ?? 'mcp-actors',
      redirect_uris: [],
      grant_types: [JWT_BEARER],
      token_endpoint_auth_method: 'client_secret_basic',
      ...(this.options.scope ? { scope: this.options.scope } : {}),
    };
  }

  clientInformation(): OAuthClientInformationMixed {
    return this.info;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovered = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovered;
  }

  redirectToAuthorization(): never {
    throw new McpActorsError(
      ErrorCode.AUTH_FAILED,
      'cross-app access needs no browser: the authorization server asked for one, so it does not accept the JWT bearer grant',
    );
  }

  saveCodeVerifier(): void {}

  codeVerifier(): never {
    throw new McpActorsError(ErrorCode.AUTH_FAILED, 'cross-app access uses no PKCE code verifier');
  }

  /** Step 1 at the IdP (ID token → ID-JAG), step 2's parameters for the authorization server. */
  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    const audience = this.discovered?.authorizationServerMetadata?.issuer ?? this.discovered?.authorizationServerUrl;
    const resource = this.discovered?.resourceMetadata?.resource;
    if (!audience || !resource) {
      throw new McpActorsError(
        ErrorCode.AUTH_FAILED,
        'cross-app access needs the authorization server and the resource from discovery; the server published no protected-resource metadata',
      );
    }
    const idToken = typeof this.options.idToken === 'function' ? await this.options.idToken() : this.options.idToken;
    this.record(idToken);
    const response = await fetch(this.options.idpTokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: TOKEN_EXCHANGE,
        requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
        audience,
        resource,
        subject_token: idToken,
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
        client_id: this.options.idpClientId,
        ...(scope ? { scope } : {}),
      }),
    });
    const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown };
    if (!response.ok || typeof body.access_token !== 'string') {
      const error = typeof body.error === 'string' ? body.error : `HTTP ${response.status}`;
      throw new McpActorsError(
        ErrorCode.AUTH_FAILED,
        `the identity provider refused the token exchange (${error}); check the ID token and the IdP client id`,
        {
          details: { oauthError: error },
        },
      );
    }
    return new URLSearchParams({ grant_type: JWT_BEARER, assertion: body.access_token });
  }
}
