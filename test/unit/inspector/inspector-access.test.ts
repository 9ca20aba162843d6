/** Who may use the inspector, from the request's Host, Origin and token alone. */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { accessOf, isLoopbackHost } from '../../../src/inspector/inspector-access.js';

const TOKEN = 'a'.repeat(32);
const requestOf = (url: string, headers: Record<string, string>): IncomingMessage => ({ url, headers }) as unknown as IncomingMessage;

describe('accessOf', () => {
  it('answers only loopback names with the server port', () => {
    for (const host of ['127.0.0.1:4000', 'localhost:4000', 'LOCALHOST:4000', '[::1]:4000']) expect(isLoopbackHost(host, 4000)).toBe(true);
    for (const host of ['evil.example:4000', '127.0.0.1:4001', '127.0.0.1', 'localhost.evil.example:4000', '127.0.0.2:4000', undefined]) {
      expect(isLoopbackHost(host, 4000)).toBe(false);
    }
  });

  it('makes a same-origin page a read-only viewer, and refuses any other origin', () => {
    expect(accessOf(requestOf('/', { host: '127.0.0.1:4000', origin: 'http://127.0.0.1:4000' }), 4000, TOKEN)).toEqual({
      kind: 'viewer',
      stately: false,
    });
    expect(accessOf(requestOf('/?view=stately', { host: 'localhost:4000', origin: 'http://localhost:4000' }), 4000, TOKEN)).toEqual({
      kind: 'viewer',
      stately: true,
    });
    // An Origin with the token is still a page: read-only.
    expect(accessOf(requestOf(`/?token=${TOKEN}`, { host: '127.0.0.1:4000', origin: 'http://127.0.0.1:4000' }), 4000, TOKEN).kind).toBe(
      'viewer',
    );
    for (const origin of ['http://evil.example', 'http://localhost:4000', 'https://127.0.0.1:4000', 'null']) {
      expect(accessOf(requestOf('/', { host: '127.0.0.1:4000', origin }), 4000, TOKEN)).toMatchObject({ kind: 'refused', status: 403 });
    }
  });

  it('makes a producer only of the right token', () => {
    expect(accessOf(requestOf(`/?token=${TOKEN}`, { host: '127.0.0.1:4000' }), 4000, TOKEN)).toEqual({ kind: 'producer' });
    expect(accessOf(requestOf('/?token=wrong', { host: '127.0.0.1:4000' }), 4000, TOKEN)).toMatchObject({ kind: 'refused', status: 401 });
    expect(accessOf(requestOf('/', { host: '127.0.0.1:4000' }), 4000, TOKEN)).toEqual({ kind: 'viewer', stately: false });
    expect(accessOf(requestOf(`/?token=${TOKEN}`, { host: 'evil.example:4000' }), 4000, TOKEN)).toMatchObject({
      kind: 'refused',
      status: 421,
    });
  });
});
