export {
  completesAuthorization,
  type AuthorizationCodeSource,
  type OAuthClientProvider,
  type RemoteServerInfo,
  type ServerAuth,
} from './server-auth.js';
export { LoopbackOAuthProvider, type LoopbackOAuthProviderOptions } from './loopback-oauth-provider.js';
export { CrossAppAccessProvider, type CrossAppAccessProviderOptions } from './cross-app-access-provider.js';
export { FileTokenStore, MemoryTokenStore, defaultTokenFile, type StoredAuth, type TokenStore } from './token-store.js';
export { authErrorOf } from './auth-error.js';
export { recordingSecrets, type SecretReporter } from './secret-recording-provider.js';
