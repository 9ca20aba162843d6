import { describe, expect, it } from 'vitest';
import { completesAuthorization } from '../../../src/auth/server-auth.js';
import { LoopbackOAuthProvider } from '../../../src/auth/loopback-oauth-provider.js';
import { recordingSecrets } from '../../../src/auth/secret-recording-provider.js';
import { MemoryTokenStore } from '../../../src/auth/token-store.js';
import { CrossAppAccessProvider } from '../../../src/auth/cross-app-access-provider.js';
import { REDACTED, Redactor } from '../../../src/redaction/redactor.js';

describe('recordingSecrets', () => {
  it('makes tokens loaded from a store secret before any request, and tokens saved later too', async () => {
    const store = new MemoryTokenStore();
    await store.save('s', {
      tokens: { access_token: 'stored-access-1234', token_type: 'Bearer', refresh_token: 'stored-refresh-5678' },
      clientInformation: { client_id: 'c', client_secret: 'client-secret-9012' },
    });
    const provider = await LoopbackOAuthProvider.create({ key: 's', store, openUrl: () => undefined });
    const redactor = new Redactor();
    const wrapped = recordingSecrets(provider, (value) => redactor.addSecret(value));
    await new Promise((resolve) => setImmediate(resolve));
    expect(redactor.redactText('stored-access-1234 STORED-REFRESH-5678 client-secret-9012')).toBe(`${REDACTED} ${REDACTED} ${REDACTED}`);
    await wrapped.saveTokens({ access_token: 'fresh-access-3456', token_type: 'Bearer', id_token: 'fresh-id-token-7890' });
    expect(redactor.redactText('Bearer fresh-access-3456 fresh-id-token-7890 Bearer')).toBe(`Bearer ${REDACTED} ${REDACTED} Bearer`);
    // Everything else reaches the provider as it is.
    expect(wrapped.redirectUrl).toBe(provider.redirectUrl);
    expect(completesAuthorization(wrapped)).toBe(true);
    provider.close();
  });

  it('makes a cross-app provider client secret and ID token secret', () => {
    const redactor = new Redactor();
    recordingSecrets(
      new CrossAppAccessProvider({
        clientId: 'c',
        clientSecret: 'xaa-client-secret',
        idpTokenEndpoint: 'http://127.0.0.1:9/token',
        idpClientId: 'i',
        idToken: 'eyJ-id-token-abcdef',
      }),
      (value) => redactor.addSecret(value),
    );
    expect(redactor.redactText('xaa-client-secret eyJ-id-token-abcdef')).toBe(`${REDACTED} ${REDACTED}`);
  });
});
