/**
 * How a host gives remote servers their credentials: an SDK `OAuthClientProvider` per server
 * (`ClientCredentialsProvider`, `PrivateKeyJwtProvider`, our `LoopbackOAuthProvider`, or its own).
 * A provider that can also finish an authorization-code flow it started (a loopback redirect
 * caught, a code pasted) says so with `takeAuthorizationCode()`: the transport then exchanges the
 * code and sends the request again, once.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';

export type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';

/** The server an `auth` function is asked about. */
export interface RemoteServerInfo {
  readonly name: string;
  readonly url: string;
  /** The tenant the server actor works for (runtime only). */
  readonly tenant?: string | undefined;
}

/** `createRuntime({ auth })`: the provider for a server, or `undefined` for none (headers only). */
export type ServerAuth = (server: RemoteServerInfo) => OAuthClientProvider | undefined;

/** An `OAuthClientProvider` that can complete the authorization it redirected to. */
export interface AuthorizationCodeSource {
  /**
   * The authorization code of the authorization started by the last `redirectToAuthorization`,
   * once the user agent brings it back; `undefined` when no authorization was started.
   */
  takeAuthorizationCode(): Promise<string> | undefined;
}

export function completesAuthorization(provider: OAuthClientProvider): provider is OAuthClientProvider & AuthorizationCodeSource {
  return typeof (provider as Partial<AuthorizationCodeSource>).takeAuthorizationCode === 'function';
}
