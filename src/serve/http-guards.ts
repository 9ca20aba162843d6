/**
 * The checks a served HTTP endpoint makes before MCP sees a request: Host and Origin against
 * DNS rebinding (a page on evil.example whose name resolves to 127.0.0.1 must not reach a local
 * server), and a bounded read of a POST body. Pure where it can be, so the rule is testable alone.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const LOOPBACK_HOSTNAMES: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '[::1]']);

/** Whether `host` is one of the loopback names (`::1` with or without brackets). */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase();
  return name === 'localhost' || name === '::1' || name === '[::1]' || /^127(\.\d{1,3}){3}$/.test(name);
}

/** The hostname of a Host header value or an origin, lower-cased, IPv6 in brackets; undefined when it does not parse. */
export function hostnameOf(value: string, withScheme: boolean): string | undefined {
  try {
    const url = new URL(withScheme ? value : `http://${value}`);
    if (!withScheme && (url.pathname !== '/' || url.search !== '' || url.username !== '' || url.password !== '')) return undefined;
    return url.hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

export type HostCheck = { readonly ok: true } | { readonly ok: false; readonly status: 403; readonly reason: string };

/**
 * The DNS-rebinding rule: the Host header must name an allowed hostname (any port), and an Origin
 * header, when the request has one, must be an allowed origin or have an allowed hostname.
 *
 * @example
 * checkHostAndOrigin({ host: 'evil.example.com' }, ['localhost', '127.0.0.1', '[::1]'], []);
 * // { ok: false, status: 403, reason: 'Host "evil.example.com" is not allowed ...' }
 */
export function checkHostAndOrigin(
  headers: { readonly host?: string | undefined; readonly origin?: string | undefined },
  allowedHostnames: readonly string[],
  allowedOrigins: readonly string[],
): HostCheck {
  const allowed = new Set(allowedHostnames.map((name) => name.toLowerCase()));
  const host = headers.host;
  if (host === undefined || host === '') return { ok: false, status: 403, reason: 'the request has no Host header' };
  const hostname = hostnameOf(host, false);
  if (hostname === undefined || !allowed.has(hostname)) {
    return {
      ok: false,
      status: 403,
      reason: `Host ${JSON.stringify(host)} is not allowed (DNS rebinding protection); allowed: ${[...allowed].join(', ')}`,
    };
  }
  const origin = headers.origin;
  if (origin === undefined) return { ok: true };
  if (allowedOrigins.includes(origin)) return { ok: true };
  const originHost = hostnameOf(origin, true);
  if (originHost === undefined || !allowed.has(originHost)) {
    return {
      ok: false,
      status: 403,
      reason: `Origin ${JSON.stringify(origin)} is not allowed (DNS rebinding protection); pass it in allowedOrigins to allow it`,
    };
  }
  return { ok: true };
}

export class BodyTooLarge extends Error {}

/** Reads a request body up to `limit` bytes; rejects with BodyTooLarge past it. */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(new BodyTooLarge(`the body declares ${declared} bytes, more than ${limit}`));
      request.resume();
      return;
    }
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeAllListeners('data');
        request.resume();
        reject(new BodyTooLarge(`the body is more than ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    request.once('end', () => resolve(Buffer.concat(chunks)));
    request.once('error', reject);
  });
}

/** Answers with a JSON-RPC error body (MCP's convention for transport-level refusals). */
export function answerError(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
