/**
 * The host side of a network allowlist: an HTTP proxy on a unix socket that a confined server
 * (which has no network of its own, `--unshare-net`) reaches through the bridge inside its
 * sandbox. It serves `CONNECT host:port` (HTTPS and any TCP a client tunnels) and plain-HTTP
 * requests in absolute form, and refuses with 403 every host the allowlist does not name.
 *
 * Entries: `example.com` (any port), `*.example.com` (its subdomains), `example.com:443`,
 * `127.0.0.1:8080`, `[::1]:8080`. Names are matched as written, case-insensitively; a listed name
 * that resolves to a loopback address is reached (the list is the user's word).
 *
 * One proxy per distinct allowlist per host process, never closed before the host exits (it is
 * `unref`ed, so it does not keep the host alive); its socket lives in a private 0700 folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onExit } from 'signal-exit';

export interface AllowlistProxy {
  readonly socket: string;
}

interface Rule {
  readonly host: string;
  readonly wildcard: boolean;
  readonly port: number | undefined;
}

const proxies = new Map<string, AllowlistProxy>();

/** Parses `host`, `*.host`, `host:port`, `[v6]:port`. */
export function parseAllowEntry(entry: string): Rule {
  let text = entry.trim().toLowerCase();
  let port: number | undefined;
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (v6) return { host: v6[1] ?? '', wildcard: false, port: v6[2] === undefined ? undefined : Number(v6[2]) };
  const withPort = /^(.*):(\d+)$/.exec(text);
  if (withPort && !(withPort[1] ?? '').includes(':')) {
    text = withPort[1] ?? '';
    port = Number(withPort[2]);
  }
  const wildcard = text.startsWith('*.');
  return { host: wildcard ? text.slice(2) : text, wildcard, port };
}

/** Whether `host:port` is allowed by the list. */
export function isAllowed(allow: readonly string[], host: string, port: number): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  return allow.map(parseAllowEntry).some((rule) => {
    if (rule.port !== undefined && rule.port !== port) return false;
    return rule.wildcard ? name.endsWith(`.${rule.host}`) : name === rule.host;
  });
}

/** The proxy for this allowlist, started on first use. */
export function allowlistProxy(allow: readonly string[]): AllowlistProxy {
  const key = JSON.stringify([...allow].sort());
  const existing = proxies.get(key);
  if (existing) return existing;
  const folder = mkdtempSync(join(tmpdir(), 'mcp-actors-proxy-'));
  const socket = join(folder, 'proxy.sock');
  const server = createServer((req, res) => forwardHttp(allow, req, res));
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => tunnel(allow, req, client, head));
  server.on('clientError', (_error, client: Socket) => client.destroy());
  // Binding a unix socket happens synchronously: the socket exists when this returns.
  server.listen(socket);
  server.unref();
  // Also on a catchable signal (signal-exit does not stop the host from exiting).
  onExit(() => rmSync(folder, { recursive: true, force: true }));
  const proxy = { socket };
  proxies.set(key, proxy);
  return proxy;
}

function refuse(client: Socket, host: string): void {
  client.end(
    `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${host} is not in this server's network allowlist (confine.network)\n`,
  );
}

function tunnel(allow: readonly string[], req: IncomingMessage, client: Socket, head: Buffer): void {
  client.on('error', () => client.destroy());
  const target = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
  if (!target) {
    client.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    return;
  }
  const host = (target[1] ?? '').replace(/^\[|\]$/g, '');
  const port = Number(target[2]);
  if (!isAllowed(allow, host, port)) {
    refuse(client, `${host}:${port}`);
    return;
  }
  const upstream = connect({ host, port });
  upstream.on('connect', () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', () => {
    if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n');
  });
  client.on('close', () => upstream.destroy());
}

function forwardHttp(allow: readonly string[], req: IncomingMessage, res: ServerResponse): void {
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    res.writeHead(400).end('a proxy request must name an absolute http:// URL\n');
    return;
  }
  const port = url.port === '' ? 80 : Number(url.port);
  if (url.protocol !== 'http:' || !isAllowed(allow, url.hostname, port)) {
    res.writeHead(403, { 'Content-Type': 'text/plain' }).end(`${url.host} is not in this server's network allowlist (confine.network)\n`);
    return;
  }
  const upstream = httpRequest(
    { host: url.hostname.replace(/^\[|\]$/g, ''), port, method: req.method, path: `${url.pathname}${url.search}`, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(upstream);
}
