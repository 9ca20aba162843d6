import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InvalidGrantError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { describe, expect, it } from 'vitest';
import { authErrorOf } from '../../../src/auth/auth-error.js';
import { capabilitiesFor } from '../../../src/server/server-requests.js';
import { redactedConfig } from '../../../src/redaction/redactor.js';
import { validateServerConfig } from '../../../src/config/server-config.js';

const context = { server: 'linear', url: 'https://mcp.example.com/mcp', what: 'connect', hasProvider: false };

describe('authErrorOf', () => {
  it('reads 401 from the SDK as AUTH_REQUIRED and 403 or a refused grant as AUTH_FAILED', () => {
    expect(authErrorOf(new UnauthorizedError(), context)?.code).toBe('AUTH_REQUIRED');
    expect(authErrorOf(new StreamableHTTPError(401, 'x'), context)?.code).toBe('AUTH_REQUIRED');
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- a stand-in event on purpose: authErrorOf reads the SseError's code, never its event
    expect(authErrorOf(new SseError(401, 'x', {} as ConstructorParameters<typeof SseError>[2]), context)?.code).toBe('AUTH_REQUIRED');
    expect(authErrorOf(new StreamableHTTPError(403, 'x'), context)?.code).toBe('AUTH_FAILED');
    expect(authErrorOf(new InvalidGrantError('refresh token expired'), context)).toMatchObject({
      code: 'AUTH_FAILED',
      details: { oauthError: 'invalid_grant' },
    });
  });

  it('leaves every other failure alone', () => {
    for (const error of [new StreamableHTTPError(404, 'x'), new StreamableHTTPError(500, 'x'), new TypeError('fetch failed'), 'text']) {
      expect(authErrorOf(error, context)).toBeUndefined();
    }
  });

  it('says what to do, and keeps no word of the SDK message (a body may echo a token) in its cause', () => {
    const error = authErrorOf(new StreamableHTTPError(401, 'Bearer at-SECRET echoed'), context);
    expect(error?.message).toContain('agents auth login linear');
    expect((error?.cause as Error).message).not.toContain('SECRET');
    expect(JSON.stringify(error)).not.toContain('SECRET');
  });
});

describe('what a remote server config shows and declares', () => {
  it('redacts header and env values, keeping their names', () => {
    const config = validateServerConfig({ name: 'r', url: 'https://x.example/mcp', headers: { Authorization: 'Bearer s3cr3t' } });
    expect(redactedConfig(config).headers).toEqual({ Authorization: '[redacted]' });
    expect(JSON.stringify(redactedConfig(config))).not.toContain('s3cr3t');
  });

  it('turns sseFallback on only when the transport is implied by the url', () => {
    expect(validateServerConfig({ name: 'r', url: 'https://x.example/mcp' }).sseFallback).toBe(true);
    expect(validateServerConfig({ name: 'r', url: 'https://x.example/mcp', transport: 'streamable-http' }).sseFallback).toBeUndefined();
    expect(validateServerConfig({ name: 'r', url: 'https://x.example/mcp', sseFallback: false }).sseFallback).toBeUndefined();
    expect(validateServerConfig({ name: 'r', url: 'https://x.example/mcp', transport: 'sse' }).sseFallback).toBeUndefined();
    const resolved = validateServerConfig({ name: 'r', url: 'https://x.example/mcp' });
    expect(validateServerConfig(resolved)).toEqual(resolved); // a resolved config validates to itself
  });

  it('declares elicitation and sampling only for the handlers given', () => {
    expect(capabilitiesFor(undefined)).toEqual({});
    expect(capabilitiesFor({ onElicit: () => ({ action: 'decline' }) })).toEqual({ elicitation: { form: { applyDefaults: true } } });
    expect(capabilitiesFor({ onSample: () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: '' } }) })).toEqual({
      sampling: {},
    });
  });
});
