/**
 * Tells the redactor every credential an OAuth provider holds, the moment the SDK reads or saves
 * it: access, refresh and ID tokens (obtained, refreshed, or loaded from a token store), the
 * client secret and registration token a dynamic registration returned, and what a token request
 * carries (an assertion, a client assertion). A server that echoes `Bearer <token>` back then
 * finds it replaced in every error, status, event and inspector message, as a `headers` value is.
 *
 * The provider is wrapped, not changed: every other member (getters such as `redirectUrl`,
 * optional methods the SDK looks for with `in`, `takeAuthorizationCode`) reaches it as it is.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';

/** A provider that knows credentials the SDK never reads through it (an IdP's ID token). */
export interface SecretReporter {
  /** Called once, when the provider is put to use: `record` every credential, now and later. */
  reportSecrets(record: (value: string) => void): void;
}

const TOKEN_FIELDS = ['access_token', 'refresh_token', 'id_token'] as const;
const CLIENT_FIELDS = ['client_secret', 'registration_access_token'] as const;
/** Form fields of a token request that are credentials. */
const REQUEST_FIELDS = [
  'assertion',
  'client_assertion',
  'client_secret',
  'refresh_token',
  'subject_token',
  'actor_token',
  'code',
  'code_verifier',
  'password',
] as const;

type RecordSecret = (value: string | undefined) => void;

/**
 * @example
 * const auth = recordingSecrets(await LoopbackOAuthProvider.create({ key: 'github' }), (value) => redactor.addSecret(value));
 */
export function recordingSecrets(provider: OAuthClientProvider, record: RecordSecret): OAuthClientProvider {
  const fields = (value: unknown, names: readonly string[]): void => {
    if (typeof value !== 'object' || value === null) return;
    for (const name of names) {
      const field = (value as Record<string, unknown>)[name];
      if (typeof field === 'string') record(field);
    }
  };
  const params = (value: unknown): void => {
    if (value instanceof URLSearchParams) for (const name of REQUEST_FIELDS) for (const field of value.getAll(name)) record(field);
  };
  const tokens = (value: unknown): void => fields(value, TOKEN_FIELDS);
  const client = (value: unknown): void => fields(value, CLIENT_FIELDS);
  /** What a member reads or writes, by its name: which argument or result holds credentials. */
  const watched: Readonly<
    Record<string, { readonly args?: (args: unknown[]) => void; readonly result?: (value: unknown, args: unknown[]) => void }>
  > = {
    tokens: { result: tokens },
    saveTokens: { args: ([value]) => tokens(value) },
    clientInformation: { result: client },
    saveClientInformation: { args: ([value]) => client(value) },
    prepareTokenRequest: { result: params },
  };
  /** After `addClientAuthentication`: what the provider wrote into the request's headers and body. */
  const authentication = ([headers, body]: unknown[]): void => {
    params(body);
    if (headers instanceof Headers) record(/^\s*\S+\s+(\S.*)$/.exec(headers.get('authorization') ?? '')?.[1]);
  };
  if (isSecretReporter(provider)) provider.reportSecrets((value) => record(value));
  // Credentials a store already holds are secret before the first request is sent.
  void settle(() => provider.tokens(), tokens);
  void settle(() => provider.clientInformation(), client);
  return new Proxy(provider, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      const member = value as (...args: unknown[]) => unknown;
      const watch =
        key === 'addClientAuthentication'
          ? { result: (_: unknown, args: unknown[]) => authentication(args) }
          : typeof key === 'string'
            ? watched[key]
            : undefined;
      if (!watch) return member.bind(target);
      return (...args: unknown[]): unknown => {
        watch.args?.(args);
        const result = member.apply(target, args);
        const see = watch.result;
        if (!see) return result;
        return isPromise(result) ? result.then((settled) => (see(settled, args), settled)) : (see(result, args), result);
      };
    },
  });
}

function isSecretReporter(provider: OAuthClientProvider): provider is OAuthClientProvider & SecretReporter {
  return typeof (provider as Partial<SecretReporter>).reportSecrets === 'function';
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** Reads a provider member once, ignoring its failure (the SDK reports that when it reads it). */
async function settle(read: () => unknown, see: (value: unknown) => void): Promise<void> {
  try {
    see(await read());
  } catch {
    // Nothing to record.
  }
}
