/**
 * A loopback MCP server behind OAuth, built from the SDK's own auth server pieces: `mcpAuthRouter`
 * (metadata discovery, dynamic registration, authorize with PKCE, token, protected-resource
 * metadata) and `requireBearerAuth` in front of the streamable-HTTP handler. The authorization
 * endpoint approves at once (the test plays the browser). Access tokens live `tokenTtlSeconds`;
 * refresh tokens are issued and counted.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import express from 'express';
import type { Request, Response } from 'express';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { closeHttp, listen, streamableHandler } from './http-mcp-server.js';

export interface OAuthMcpServer {
  readonly url: string;
  readonly issuer: string;
  readonly counts: { registrations: number; authorizations: number; codeGrants: number; refreshGrants: number; rejectedTokens: number };
  /** Every access token issued, for searching outputs for them. */
  readonly issuedTokens: string[];
  /** Makes every access token issued so far expire now. */
  expireTokens(): void;
  close(): Promise<void>;
}

export class TestAuthProvider implements OAuthServerProvider {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  readonly codes = new Map<string, { clientId: string; params: AuthorizationParams }>();
  readonly tokens = new Map<string, AuthInfo>();
  readonly refreshTokens = new Map<string, { clientId: string; scopes: string[] }>();
  readonly counts = { registrations: 0, authorizations: 0, codeGrants: 0, refreshGrants: 0, rejectedTokens: 0 };
  readonly issued: string[] = [];

  constructor(private readonly ttlSeconds: number) {}

  get clientsStore(): OAuthRegisteredClientsStore {
    return {
      getClient: (id) => this.clients.get(id),
      registerClient: (client) => {
        this.counts.registrations += 1;
        const full = {
          ...client,
          client_id: `client-${randomBytes(4).toString('hex')}`,
          client_id_issued_at: Math.floor(Date.now() / 1000),
        };
        this.clients.set(full.client_id, full);
        return full;
      },
    };
  }

  authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    this.counts.authorizations += 1;
    const code = randomBytes(12).toString('hex');
    this.codes.set(code, { clientId: client.client_id, params });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state) target.searchParams.set('state', params.state);
    res.redirect(target.href);
    return Promise.resolve();
  }

  challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const entry = this.codes.get(code);
    if (!entry) return Promise.reject(new Error('unknown code'));
    return Promise.resolve(entry.params.codeChallenge);
  }

  exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const entry = this.codes.get(code);
    if (!entry || entry.clientId !== client.client_id) return Promise.reject(new Error('bad code'));
    this.codes.delete(code);
    this.counts.codeGrants += 1;
    return Promise.resolve(this.issue(client.client_id, entry.params.scopes ?? []));
  }

  exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    const entry = this.refreshTokens.get(refreshToken);
    if (!entry || entry.clientId !== client.client_id) return Promise.reject(new Error('bad refresh token'));
    this.refreshTokens.delete(refreshToken);
    this.counts.refreshGrants += 1;
    return Promise.resolve(this.issue(client.client_id, entry.scopes));
  }

  verifyAccessToken(token: string): Promise<AuthInfo> {
    const info = this.tokens.get(token);
    if (!info) {
      this.counts.rejectedTokens += 1;
      return Promise.reject(new InvalidTokenError('unknown token'));
    }
    return Promise.resolve(info);
  }

  private issue(clientId: string, scopes: string[]): OAuthTokens {
    const accessToken = `at-${randomBytes(16).toString('hex')}`;
    const refreshToken = `rt-${randomBytes(16).toString('hex')}`;
    this.issued.push(accessToken, refreshToken);
    this.tokens.set(accessToken, { token: accessToken, clientId, scopes, expiresAt: Math.floor(Date.now() / 1000) + this.ttlSeconds });
    this.refreshTokens.set(refreshToken, { clientId, scopes });
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: this.ttlSeconds,
      refresh_token: refreshToken,
      scope: scopes.join(' '),
    };
  }
}

export async function startOAuthMcpServer(options: { tokenTtlSeconds?: number } = {}): Promise<OAuthMcpServer> {
  const app = express();
  const http = createServer(app);
  const port = await listen(http, 0);
  const issuer = `http://127.0.0.1:${port}`;
  const url = `${issuer}/mcp`;
  const provider = new TestAuthProvider(options.tokenTtlSeconds ?? 3600);
  const noLimit = { rateLimit: false as const };
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(issuer),
      resourceServerUrl: new URL(url),
      scopesSupported: ['mcp'],
      authorizationOptions: noLimit,
      tokenOptions: noLimit,
      clientRegistrationOptions: noLimit,
      revocationOptions: noLimit,
    }),
  );
  const streamable = streamableHandler();
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: `${issuer}/.well-known/oauth-protected-resource/mcp` });
  app.all('/mcp', express.json(), bearer, (req: Request, res: Response) => {
    streamable.handle(req, res, req.body).catch(() => {
      if (!res.headersSent) res.status(500).end();
    });
  });
  return {
    url,
    issuer,
    counts: provider.counts,
    issuedTokens: provider.issued,
    expireTokens: () => {
      for (const info of provider.tokens.values()) info.expiresAt = Math.floor(Date.now() / 1000) - 1;
    },
    close: async () => {
      await streamable.expire();
      await closeHttp(http);
    },
  };
}
