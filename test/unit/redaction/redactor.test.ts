import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/errors/codes.js';
import { McpActorsError, isMcpActorsError } from '../../../src/errors/mcp-actors-error.js';
import { REDACTED, Redactor } from '../../../src/redaction/redactor.js';

describe('Redactor', () => {
  it('replaces env and header values, and the credential after a scheme word, inside any text', () => {
    const redactor = new Redactor();
    redactor.addServerConfig({ env: { TOKEN: 'tok-123456' }, headers: { Authorization: 'Bearer abc-secret' } });
    expect(redactor.redactText('env tok-123456 here')).toBe(`env ${REDACTED} here`);
    expect(redactor.redactText('sent Bearer abc-secret')).toBe(`sent ${REDACTED}`);
    expect(redactor.redactText('token abc-secret echoed')).toBe(`token ${REDACTED} echoed`);
  });

  it('takes a password out of a url', () => {
    const redactor = new Redactor();
    redactor.addServerConfig({ url: 'https://user:p%40ssword9@example.com/mcp' });
    expect(redactor.redactText('failed: p@ssword9 and p%40ssword9')).toBe(`failed: ${REDACTED} and ${REDACTED}`);
  });

  it('leaves the runtime placeholders alone but redacts what surrounds them', () => {
    const redactor = new Redactor();
    redactor.addServerConfig({ env: { WHO: '${TENANT}', FILE: '/var/secret-dir/${TENANT}.jsonl' } });
    expect(redactor.redactText('tenant acme at /var/secret-dir/acme.jsonl')).toBe(`tenant acme at ${REDACTED}acme${REDACTED}`);
  });

  it('redacts short values only where a whole string equals them', () => {
    const redactor = new Redactor();
    redactor.addSecret('x1');
    expect(redactor.redact({ a: 'x1', b: 'ax1b' })).toEqual({ a: REDACTED, b: 'ax1b' });
  });

  it('records every variable a ${VAR} reference reads', () => {
    const redactor = new Redactor();
    const env = redactor.recordingEnv({ API_KEY: 'key-987654', UNUSED: 'nothing-read' });
    expect(env.API_KEY).toBe('key-987654');
    expect(redactor.redactText('--key=key-987654 nothing-read')).toBe(`--key=${REDACTED} nothing-read`);
  });

  it('redacts argument values the host marks secret, and only those', () => {
    const redactor = new Redactor({ redactArgument: ({ name }) => name === 'password' });
    redactor.addArguments('db/login', { user: 'alice-smith', password: { value: 'hunter2222' } });
    expect(redactor.redactText('alice-smith hunter2222')).toBe(`alice-smith ${REDACTED}`);
  });

  it('returns data without secrets as the same object', () => {
    const redactor = new Redactor();
    redactor.addSecret('secret-value');
    const data = { a: ['x', { b: 'y' }], n: 1 };
    expect(redactor.redact(data)).toBe(data);
  });

  it('copies an error of the same class with message, stack, details and cause chain redacted', () => {
    const redactor = new Redactor();
    redactor.addSecret('secret-value');
    const cause = new Error('inner secret-value');
    const error = new McpActorsError(ErrorCode.SERVER_EXITED, 'exited: secret-value', { cause, details: { stderrTail: ['secret-value'] } });
    const redacted = redactor.redactError(error);
    expect(redacted).not.toBe(error);
    expect(isMcpActorsError(redacted)).toBe(true);
    expect(redacted).toBeInstanceOf(McpActorsError);
    expect(redacted.code).toBe(ErrorCode.SERVER_EXITED);
    expect(redacted.message).toBe(`exited: ${REDACTED}`);
    expect(redacted.details).toEqual({ stderrTail: [REDACTED] });
    expect((redacted.cause as Error).message).toBe(`inner ${REDACTED}`);
    expect(String(redacted.stack)).not.toContain('secret-value');
    expect(error.message).toBe('exited: secret-value');
  });

  it('survives cycles', () => {
    const redactor = new Redactor();
    redactor.addSecret('secret-value');
    const a: Record<string, unknown> = { text: 'secret-value' };
    a.self = a;
    const redacted = redactor.redact(a);
    expect(redacted.text).toBe(REDACTED);
    expect(redacted.self).toBe(redacted);
  });

  it('replaces a secret that contains another one whole', () => {
    const redactor = new Redactor();
    redactor.addSecret('abcd');
    redactor.addSecret('abcdefgh');
    expect(redactor.redactText('abcdefgh')).toBe(REDACTED);
  });

  it('redacts the common encodings of a secret: case, base64 inside Basic credentials, URL, JSON escaped twice', () => {
    const redactor = new Redactor();
    redactor.addSecret('s3cr3t/Value+42"x');
    const basic = Buffer.from('alice:s3cr3t/Value+42"x').toString('base64');
    expect(redactor.redactText('S3CR3T/VALUE+42"X')).toBe(REDACTED);
    expect(redactor.redactText(`Authorization: Basic ${basic}`)).not.toContain(basic.slice(8, 24));
    expect(redactor.redactText(`?t=${encodeURIComponent('s3cr3t/Value+42"x')}`)).toBe(`?t=${REDACTED}`);
    expect(redactor.redactText(JSON.stringify(JSON.stringify({ t: 's3cr3t/Value+42"x' })))).toBe(`"{\\"t\\":\\"${REDACTED}\\"}"`);
  });

  it('redacts each line of a multi-line secret on its own, but not the PEM armor', () => {
    const redactor = new Redactor();
    redactor.addServerConfig({
      env: { KEY: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nshort\n-----END PRIVATE KEY-----\n' },
    });
    expect(redactor.redact({ stderrTail: ['-----BEGIN PRIVATE KEY-----', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 'short'] })).toEqual({
      stderrTail: ['-----BEGIN PRIVATE KEY-----', REDACTED, 'short'],
    });
  });
});
