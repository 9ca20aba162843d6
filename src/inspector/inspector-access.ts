/**
 * Who may talk to the inspector server, decided from one HTTP request (a page request or a
 * WebSocket upgrade) before anything is served:
 *
 * - the `Host` must name the loopback address the server listens on (`127.0.0.1`, `[::1]` or
 *   `localhost`, with its port), so a DNS-rebinding page on another name gets nothing;
 * - a request that carries an `Origin` (every browser sends one on a WebSocket) must come from the
 *   inspector's own page (same origin as the `Host`); such a connection is a viewer, read-only;
 * - a connection with `?token=<the run's token>` is a producer (an XState inspection client in
 *   another process, e.g. `@statelyai/inspect`'s `createWebSocketInspector`): its messages are
 *   relayed to the viewers. A wrong token is refused outright;
 * - any other connection (no `Origin`, no token: a local tool) is a viewer, read-only.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** What a request may do, or why it is refused (with the HTTP status to answer). */
export type InspectorAccess =
  | { readonly kind: 'viewer'; readonly stately: boolean }
  | { readonly kind: 'producer' }
  | { readonly kind: 'refused'; readonly status: 401 | 403 | 421; readonly reason: string };

const LOOPBACK_NAMES = ['127.0.0.1', '[::1]', 'localhost'];

/** Whether `host` (a `Host` header) names this server on a loopback address. */
export function isLoopbackHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  const lower = host.toLowerCase();
  return LOOPBACK_NAMES.some((name) => lower === `${name}:${port}` || (port === 80 && lower === name));
}

/** Whether `origin` (an `Origin` header) is the page this `host` serves. */
export function isSameOrigin(origin: string, host: string): boolean {
  return origin.toLowerCase() === `http://${host.toLowerCase()}`;
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The access a request has to a server on `port` whose producers present `token`. */
export function accessOf(request: IncomingMessage, port: number, token: string): InspectorAccess {
  const host = request.headers.host;
  if (host === undefined || !isLoopbackHost(host, port)) {
    return { kind: 'refused', status: 421, reason: 'the inspector answers only to 127.0.0.1, [::1] or localhost with its port' };
  }
  const url = new URL(request.url ?? '/', 'http://inspector.invalid');
  const origin = request.headers.origin;
  if (origin !== undefined) {
    if (!isSameOrigin(origin, host)) return { kind: 'refused', status: 403, reason: 'a page of another origin may not use the inspector' };
    return { kind: 'viewer', stately: url.searchParams.get('view') === 'stately' };
  }
  const given = url.searchParams.get('token');
  if (given !== null) {
    if (!sameToken(given, token)) return { kind: 'refused', status: 401, reason: 'wrong producer token' };
    return { kind: 'producer' };
  }
  return { kind: 'viewer', stately: false };
}
