/**
 * A domain server served over MCP's streamable HTTP (the SDK's StreamableHTTPServerTransport on
 * node:http), so a domain can move to another process or machine (ADR-004-F). One MCP session a
 * client, bound for its life to the tenant its credential names (AI-04); SSE streams for answers,
 * notifications and server requests, resumable through an event store; Host and Origin checked
 * against DNS rebinding; bound to 127.0.0.1 unless told otherwise.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server as McpServer } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { Subject, type Observable } from 'rxjs';
import { ErrorCode, McpActorsError, messageOf } from '../errors/index.js';
import type { DomainServer } from './define-server.js';
import { createSessionServer, servableDomain, type ServeCommonOptions } from './domain-mcp-server.js';
import { BodyTooLarge, LOOPBACK_HOSTNAMES, answerError, checkHostAndOrigin, isLoopbackHost, readBody } from './http-guards.js';
import { MemoryEventStore } from './memory-event-store.js';
import type { ServedAuditRecord, ServedSession } from './served-access.js';

/** Who a request is, as the host's `authenticate` says: the tenant and what the credential allows. */
export interface Authenticated {
  readonly tenant: string;
  /** E.g. `tool:roster_purge` for a restricted tool. */
  readonly scopes?: readonly string[];
  /** Who the calls are made for (`ctx.actor`). */
  readonly actor?: string;
}

/**
 * Verifies a request's credential (typically its bearer token) and says who it is; `undefined`
 * or a throw refuses the request with 401. Called for every request: a session keeps the tenant
 * of its first request, and a later request whose credential names another tenant is refused.
 */
export type Authenticate = (request: IncomingMessage) => Authenticated | undefined | Promise<Authenticated | undefined>;

export interface ServeHttpOptions extends ServeCommonOptions {
  /** The address to listen on; default `127.0.0.1`. */
  readonly host?: string;
  /** Default 0: a free port (read it from `url`). */
  readonly port?: number;
  /** The MCP endpoint's path; default `/mcp`. */
  readonly path?: string;
  /** Single-tenant mode: every session serves this tenant, with no authentication (local use, the conformance suite). */
  readonly tenant?: string;
  /** The scopes of every session in single-tenant mode; default none. */
  readonly scopes?: readonly string[];
  /** Multi-tenant mode: the host verifies each request. Exactly one of `tenant` and `authenticate`. */
  readonly authenticate?: Authenticate;
  /** Host names accepted in the Host header (any port); default the loopback names plus `host`. */
  readonly allowedHosts?: readonly string[];
  /** Origins accepted besides those whose host name is allowed, e.g. `https://app.example.com`. */
  readonly allowedOrigins?: readonly string[];
  /** Host/Origin checks against DNS rebinding; default true. */
  readonly dnsRebindingProtection?: boolean;
  /** The SSE `retry` sent to clients, in ms; default 1,000. */
  readonly retryIntervalMs?: number;
  /** A session with no request open for this long is closed; default 30 minutes. */
  readonly sessionIdleMs?: number;
  /** New sessions beyond this many are refused with 503; default 1,000. */
  readonly maxSessions?: number;
  /** Events kept per session for resumption; default 1,000. */
  readonly maxEventsPerSession?: number;
  /** How long `close()` waits for open requests before cutting them; default 5,000 ms. */
  readonly closeTimeoutMs?: number;
  /** Where the startup line goes; default stderr. `false` for none. */
  readonly announce?: ((line: string) => void) | false;
}

export interface HttpServedDomainServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:40123/mcp`. */
  readonly url: string;
  /** Every call's audit record, as it happens; completes on close. */
  readonly audit$: Observable<ServedAuditRecord>;
  /** The sessions open now. */
  sessionCount(): number;
  /** Stops accepting, closes every session, waits for open requests (up to `closeTimeoutMs`). Idempotent. */
  close(): Promise<void>;
}

interface Session {
  readonly tenant: string;
  /** The protocol version negotiated at initialize: it decides the session's stream features. */
  readonly protocolVersion: string;
  readonly transport: StreamableHTTPServerTransport;
  readonly mcp: McpServer;
  open: number;
  idle: ReturnType<typeof setTimeout> | undefined;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Serves `server` over streamable HTTP. Resolves once listening, to `{ url, close(), audit$ }`.
 *
 * @example
 * // single-tenant, for local use
 * const served = await serveOverHttp(roster, { tenant: 'acme' });
 * // multi-tenant: the host verifies bearer tokens
 * const served = await serveOverHttp(roster, {
 *   authenticate: (request) => tokens.get(request.headers.authorization?.replace(/^Bearer /, '') ?? ''),
 *   onAudit: (record) => auditLog.write(record),
 * });
 */
export async function serveOverHttp(server: DomainServer, options: ServeHttpOptions = {}): Promise<HttpServedDomainServer> {
  const single = options.tenant;
  const authenticate = options.authenticate;
  if ((single === undefined) === (authenticate === undefined)) {
    throw new McpActorsError(
      ErrorCode.INVALID_ARGUMENT,
      `serveOverHttp("${server?.name}") needs exactly one of { tenant } (single-tenant mode, no authentication) and { authenticate } (each session's tenant from its credential)`,
    );
  }
  if (single !== undefined && (typeof single !== 'string' || single === '')) {
    throw new McpActorsError(ErrorCode.INVALID_ARGUMENT, 'options.tenant must be a non-empty string');
  }
  const domain = servableDomain(server, options);
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const protect = options.dnsRebindingProtection ?? true;
  const allowedHosts = options.allowedHosts ?? [...LOOPBACK_HOSTNAMES, ...(isLoopbackHost(host) ? [] : [host.includes(':') ? `[${host}]` : host])];
  const allowedOrigins = options.allowedOrigins ?? [];
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const maxSessions = options.maxSessions ?? 1_000;
  const policy = options.policy ?? {};
  const audit = new Subject<ServedAuditRecord>();
  const onAudit = options.onAudit;
  const sink = (record: ServedAuditRecord): void => {
    try {
      onAudit?.(record);
    } finally {
      audit.next(record);
    }
  };
  const sessions = new Map<string, Session>();
  let closing: Promise<void> | undefined;

  const dropSession = (id: string): void => {
    const session = sessions.get(id);
    if (session === undefined) return;
    sessions.delete(id);
    if (session.idle !== undefined) clearTimeout(session.idle);
    void session.mcp.close().catch(() => undefined);
  };

  const identify = async (request: IncomingMessage): Promise<Authenticated | undefined> => {
    if (single !== undefined) return { tenant: single, scopes: options.scopes ?? [] };
    try {
      const who = await authenticate!(request);
      return who !== undefined && typeof who.tenant === 'string' && who.tenant !== '' ? who : undefined;
    } catch {
      // The host's error may quote the credential: it is never echoed.
      return undefined;
    }
  };

  const track = (session: Session, response: ServerResponse): void => {
    session.open++;
    if (session.idle !== undefined) clearTimeout(session.idle);
    session.idle = undefined;
    response.once('close', () => {
      session.open--;
      if (session.open === 0 && sessions.has(session.transport.sessionId ?? '')) {
        session.idle = setTimeout(() => {
          const id = session.transport.sessionId;
          if (id !== undefined) dropSession(id);
        }, idleMs);
        session.idle.unref?.();
      }
    });
  };

  const openSession = async (who: Authenticated, request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> => {
    if (sessions.size >= maxSessions) {
      answerError(response, 503, -32000, `Service Unavailable: this server holds ${maxSessions} sessions, its maximum; close unused sessions (DELETE) or raise maxSessions`);
      return;
    }
    const served: ServedSession = { tenant: who.tenant, scopes: Object.freeze([...(who.scopes ?? [])]), ...(who.actor === undefined ? {} : { actor: who.actor }) };
    let session: Session | undefined;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new MemoryEventStore(options.maxEventsPerSession),
      retryInterval: options.retryIntervalMs ?? 1_000,
      onsessioninitialized: (id) => {
        if (session !== undefined) sessions.set(id, session);
      },
      onsessionclosed: (id) => dropSession(id),
    });
    const mcp = createSessionServer(domain, { session: served, policy, audit: sink, transport: 'http', sessionId: () => transport.sessionId });
    session = { tenant: who.tenant, protocolVersion: negotiatedVersion(body), transport, mcp, open: 0, idle: undefined };
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && sessions.get(id) === session) dropSession(id);
    };
    await mcp.connect(transport);
    track(session, response);
    await transport.handleRequest(request, response, body);
    // An initialize the transport refused (a bad header, say) made no session: nothing may hold its server.
    if (transport.sessionId === undefined || sessions.get(transport.sessionId) !== session) await mcp.close().catch(() => undefined);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (closing !== undefined) {
      answerError(response, 503, -32000, 'Service Unavailable: the server is closing', { Connection: 'close' });
      return;
    }
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== path) {
      answerError(response, 404, -32000, `Not Found: the MCP endpoint is ${path}`);
      return;
    }
    if (protect) {
      const check = checkHostAndOrigin({ host: request.headers.host, origin: request.headers.origin }, allowedHosts, allowedOrigins);
      if (!check.ok) {
        answerError(response, check.status, -32000, `Forbidden: ${check.reason}`);
        return;
      }
    }
    const who = await identify(request);
    if (who === undefined) {
      answerError(response, 401, -32001, 'Unauthorized: the request carries no valid credential for this server', { 'WWW-Authenticate': 'Bearer' });
      return;
    }
    const header = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (session === undefined) {
        answerError(response, 404, -32001, 'Session not found: it was closed or never existed; initialize a new session');
        return;
      }
      if (session.tenant !== who.tenant) {
        answerError(response, 403, -32000, 'Forbidden: this session belongs to another tenant; a session serves one tenant for its life, so initialize a session with this credential');
        return;
      }
      track(session, response);
      alignProtocolVersion(request, session.protocolVersion);
      await session.transport.handleRequest(request, response);
      return;
    }
    if (request.method !== 'POST') {
      answerError(response, 400, -32000, 'Bad Request: no Mcp-Session-Id header; initialize a session first (POST initialize)');
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse((await readBody(request, MAX_BODY_BYTES)).toString('utf8'));
    } catch (error) {
      if (error instanceof BodyTooLarge) answerError(response, 413, -32000, `Payload Too Large: ${error.message}`);
      else answerError(response, 400, -32700, 'Parse error: the body is not JSON');
      return;
    }
    const initializes = Array.isArray(body) ? body.some((message) => isInitializeRequest(message)) : isInitializeRequest(body);
    if (!initializes) {
      answerError(response, 400, -32000, 'Bad Request: no valid Mcp-Session-Id header; initialize a session first (POST initialize)');
      return;
    }
    await openSession(who, request, response, body);
  };

  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      answerError(response, 500, -32603, `Internal error: ${messageOf(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  const url = `http://${urlHost}:${address.port}${path}`;

  const close = (): Promise<void> => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeIdleConnections();
      await Promise.all([...sessions.keys()].map(async (id) => {
        const session = sessions.get(id);
        dropSession(id);
        await session?.transport.close().catch(() => undefined);
      }));
      const timer = setTimeout(() => http.closeAllConnections(), options.closeTimeoutMs ?? 5_000);
      await stopped;
      clearTimeout(timer);
      audit.complete();
    })();
    return closing;
  };

  const announce = options.announce ?? ((line: string) => void process.stderr.write(`${line}\n`));
  if (announce !== false) {
    const mode =
      single !== undefined
        ? `single-tenant mode: every session is tenant "${single}", no authentication`
        : 'each session authenticated and bound to its tenant';
    announce(`${server.name}: serving ${domain.byName.size} tools over streamable HTTP at ${url} (${mode})`);
  }
  return { url, audit$: audit.asObservable(), sessionCount: () => sessions.size, close };
}

/** The version the SDK's server answers an initialize with: the requested one if supported, else the latest. */
function negotiatedVersion(body: unknown): string {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  const initialize = messages.find((message) => isInitializeRequest(message));
  const requested = initialize === undefined ? undefined : (initialize as { params: { protocolVersion: string } }).params.protocolVersion;
  return requested !== undefined && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/**
 * A session's protocol version is the one negotiated at initialize; a later request's
 * `MCP-Protocol-Version` header that names another supported version (or none, which the SDK
 * reads as 2025-03-26) does not change what the session's streams do — e.g. SSE priming events
 * and stream release (SEP-1699) are for sessions negotiated at 2025-11-25 or later, and the client
 * that negotiated that handles them. An unsupported header value is left for the transport to
 * refuse with 400.
 */
function alignProtocolVersion(request: IncomingMessage, negotiated: string): void {
  const raw = request.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() !== 'mcp-protocol-version') continue;
    if (SUPPORTED_PROTOCOL_VERSIONS.includes(raw[i + 1] ?? '')) raw[i + 1] = negotiated;
    return;
  }
  raw.push('mcp-protocol-version', negotiated);
}
