/**
 * A domain server served over MCP's streamable HTTP (the SDK's StreamableHTTPServerTransport on
 * node:http), so a domain can move to another process or machine (ADR-004-F). One MCP session a
 * client, bound for its life to the tenant its credential names (AI-04) and to the principal who
 * opened it: the `subject` authenticate names, else the exact Authorization credential. A request
 * that brings another principal's session id is answered as if the session did not exist. SSE
 * streams for answers, notifications and server requests, resumable through an event store bounded
 * in bytes; sessions capped per tenant and in all; bodies capped in bytes; Host and Origin checked
 * against DNS rebinding; bound to 127.0.0.1 unless told otherwise.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { Subject, type Observable } from 'rxjs';
import { ErrorCode, McpActorsError, messageOf } from '../errors/index.js';
import type { DomainServer } from '../domain/define-server.js';
import { createSessionServer, servableDomain, type ServeCommonOptions, type SessionServer } from './domain-mcp-server.js';
import { BodyTooLarge, LOOPBACK_HOSTNAMES, answerError, checkHostAndOrigin, isLoopbackHost, readBody } from './http-guards.js';
import { DEFAULT_MAX_EVENT_BYTES, MemoryEventStore } from './memory-event-store.js';
import type { ServedAuditRecord, ServedSession } from './served-access.js';

/** Who a request is, as the host's `authenticate` says: the tenant, the principal, and what the credential allows. */
export interface Authenticated {
  readonly tenant: string;
  /**
   * The authenticated principal (a user or service id, e.g. a token's `sub`). A session serves the
   * subject that opened it and no other, and it is the calls' `ctx.actor`. Without a subject, a
   * session is bound to the exact `Authorization` header that opened it (a refreshed token then
   * needs a new session), and a request without one cannot open a session.
   */
  readonly subject?: string;
  /** E.g. `tool:roster_purge` for a restricted tool. */
  readonly scopes?: readonly string[];
  /** @deprecated Use `subject`; read as the subject when `subject` is absent. */
  readonly actor?: string;
}

/**
 * Verifies a request's credential (typically its bearer token) and says who it is; `undefined`
 * or a throw refuses the request with 401. Called for every request: a session keeps the tenant
 * and principal of its first request, and a later request from another tenant or principal is
 * answered 404, as for a session that does not exist.
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
  /** New sessions beyond this many in all are refused with 503; default 1,000. */
  readonly maxSessions?: number;
  /**
   * New sessions of a tenant beyond this many are refused with 429, so one tenant cannot use up
   * `maxSessions` for the others; default 100 (in single-tenant mode, `maxSessions`).
   */
  readonly maxSessionsPerTenant?: number;
  /** Events kept per session for resumption; default 1,000. */
  readonly maxEventsPerSession?: number;
  /** Bytes of events (JSON, UTF-8) kept per session for resumption, the oldest dropped first; default 1 MiB. */
  readonly maxEventBytesPerSession?: number;
  /** A POST body larger than this is refused with 413; default 4 MiB. */
  readonly maxBodyBytes?: number;
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
  /** The sessions open now, in all or of one tenant. */
  sessionCount(tenant?: string): number;
  /** Bytes the sessions' event stores hold now, in all. */
  retainedEventBytes(): number;
  /** Stops accepting, closes every session, waits for open requests (up to `closeTimeoutMs`). Idempotent. */
  close(): Promise<void>;
}

interface Session {
  readonly tenant: string;
  /** Who opened the session: `subject:<id>`, or the SHA-256 of the Authorization header that opened it. */
  readonly principal: Buffer;
  readonly events: MemoryEventStore;
  /** The protocol version negotiated at initialize: it decides the session's stream features. */
  readonly protocolVersion: string;
  readonly transport: StreamableHTTPServerTransport;
  readonly mcp: SessionServer;
  open: number;
  idle: ReturnType<typeof setTimeout> | undefined;
}

/** Who a request is, once authenticated: the host's answer and the key its sessions are bound to. */
interface Identity {
  readonly who: Authenticated;
  /** Undefined when the session cannot be bound: no subject and no Authorization header. */
  readonly principal: Buffer | undefined;
  /** `ctx.actor`: the subject, never a value the client sends. */
  readonly actor: string | undefined;
}

const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

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
    // A JavaScript caller can leave the server out.
    const given = server as Partial<DomainServer> | undefined;
    throw new McpActorsError(
      ErrorCode.INVALID_ARGUMENT,
      `serveOverHttp("${String(given?.name)}") needs exactly one of { tenant } (single-tenant mode, no authentication) and { authenticate } (each session's tenant from its credential)`,
    );
  }
  if (single !== undefined && (typeof single !== 'string' || single === '')) {
    throw new McpActorsError(ErrorCode.INVALID_ARGUMENT, 'options.tenant must be a non-empty string');
  }
  const domain = servableDomain(server, options);
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const protect = options.dnsRebindingProtection ?? true;
  const allowedHosts = options.allowedHosts ?? [
    ...LOOPBACK_HOSTNAMES,
    ...(isLoopbackHost(host) ? [] : [host.includes(':') ? `[${host}]` : host]),
  ];
  const allowedOrigins = options.allowedOrigins ?? [];
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const maxSessions = options.maxSessions ?? 1_000;
  const maxPerTenant = options.maxSessionsPerTenant ?? (single !== undefined ? maxSessions : 100);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  for (const [name, value] of [
    ['maxSessions', maxSessions],
    ['maxSessionsPerTenant', maxPerTenant],
    ['maxBodyBytes', maxBodyBytes],
  ] as const) {
    if (!Number.isInteger(value) || value < 1)
      throw new McpActorsError(ErrorCode.INVALID_ARGUMENT, `options.${name} must be a positive integer`);
  }
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
  // Sessions open or being opened, by tenant and in all: counted before the async open, so
  // concurrent initializes cannot all pass the check.
  const perTenant = new Map<string, number>();
  let reserved = 0;
  let closing: Promise<void> | undefined;

  const reserve = (tenant: string): 'ok' | 'tenant' | 'server' => {
    // The server-wide cap first: in single-tenant mode the tenant's quota is the server's, and 503 says so.
    if (reserved >= maxSessions) return 'server';
    const count = perTenant.get(tenant) ?? 0;
    if (count >= maxPerTenant) return 'tenant';
    perTenant.set(tenant, count + 1);
    reserved++;
    return 'ok';
  };
  const release = (tenant: string): void => {
    const count = (perTenant.get(tenant) ?? 1) - 1;
    if (count <= 0) perTenant.delete(tenant);
    else perTenant.set(tenant, count);
    reserved--;
  };

  const dropSession = (id: string): void => {
    const session = sessions.get(id);
    if (session === undefined) return;
    sessions.delete(id);
    release(session.tenant);
    if (session.idle !== undefined) clearTimeout(session.idle);
    void session.mcp.close().catch(() => undefined);
  };

  const identify = async (request: IncomingMessage): Promise<Identity | undefined> => {
    let who: Authenticated | undefined;
    if (single !== undefined) {
      who = { tenant: single, scopes: options.scopes ?? [] };
    } else {
      // Checked above: without a tenant there is an authenticate.
      if (authenticate === undefined) return undefined;
      try {
        who = await authenticate(request);
      } catch {
        // The host's error may quote the credential: it is never echoed.
        return undefined;
      }
      if (who === undefined || typeof who.tenant !== 'string' || who.tenant === '') return undefined;
    }
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- `actor` is still honoured, as its deprecation says: read as the subject when `subject` is absent
    const subject = who.subject ?? who.actor;
    if (subject !== undefined && (typeof subject !== 'string' || subject === '')) return undefined;
    const credential = request.headers.authorization;
    let principal: Buffer | undefined;
    if (subject !== undefined) principal = digest(`subject\0${subject}`);
    else if (credential !== undefined && credential !== '') principal = digest(`credential\0${credential}`);
    // Single-tenant mode authenticates nobody: a session is bound to the (absent) credential it was opened with.
    else if (single !== undefined) principal = digest('credential\0');
    return { who, principal, actor: subject };
  };

  /** Whether `identity` may use `session`: same tenant and same principal. */
  const owns = (identity: Identity, session: Session): boolean =>
    session.tenant === identity.who.tenant && identity.principal !== undefined && timingSafeEqual(session.principal, identity.principal);

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
        session.idle.unref();
      }
    });
  };

  const openSession = async (
    identity: Identity,
    principal: Buffer,
    request: IncomingMessage,
    response: ServerResponse,
    body: unknown,
  ): Promise<void> => {
    const { who } = identity;
    const room = reserve(who.tenant);
    if (room === 'server') {
      answerError(
        response,
        503,
        -32000,
        `Service Unavailable: this server holds ${maxSessions} sessions, its maximum; close unused sessions (DELETE) or raise maxSessions`,
      );
      return;
    }
    if (room === 'tenant') {
      answerError(
        response,
        429,
        -32000,
        `Too Many Requests: this tenant holds ${maxPerTenant} sessions, its maximum; close unused sessions (DELETE) or raise maxSessionsPerTenant`,
      );
      return;
    }
    // Set by a callback of the transport: a property, so TypeScript does not narrow it to its first value.
    const reservation = { registered: false };
    try {
      const served: ServedSession = {
        tenant: who.tenant,
        scopes: Object.freeze([...(who.scopes ?? [])]),
        ...(identity.actor === undefined ? {} : { actor: identity.actor }),
      };
      const events = new MemoryEventStore({
        maxEvents: options.maxEventsPerSession,
        maxBytes: options.maxEventBytesPerSession ?? DEFAULT_MAX_EVENT_BYTES,
      });
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: events,
        retryInterval: options.retryIntervalMs ?? 1_000,
        maxRequestBodySize: maxBodyBytes,
        // Called while the request below is handled, once `session` exists.
        onsessioninitialized: (id) => {
          sessions.set(id, session);
          reservation.registered = true;
        },
        onsessionclosed: (id) => dropSession(id),
      });
      const mcp = createSessionServer(domain, {
        session: served,
        policy,
        audit: sink,
        transport: 'http',
        sessionId: () => transport.sessionId,
      });
      const session: Session = {
        tenant: who.tenant,
        principal,
        events,
        protocolVersion: negotiatedVersion(body),
        transport,
        mcp,
        open: 0,
        idle: undefined,
      };
      transport.onclose = () => {
        const id = transport.sessionId;
        if (id !== undefined && sessions.get(id) === session) dropSession(id);
      };
      await mcp.connect(transport);
      track(session, response);
      await transport.handleRequest(request, response, body);
      // An initialize the transport refused (a bad header, say) made no session: nothing may hold its server.
      if (transport.sessionId === undefined || sessions.get(transport.sessionId) !== session) await mcp.close().catch(() => undefined);
    } finally {
      // The reservation becomes the session's (released by dropSession), or is given back.
      if (!reservation.registered) release(who.tenant);
    }
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
    const identity = await identify(request);
    if (identity === undefined) {
      answerError(response, 401, -32001, 'Unauthorized: the request carries no valid credential for this server', {
        'WWW-Authenticate': 'Bearer',
      });
      return;
    }
    const header = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      // Another principal's session is answered exactly like one that does not exist: no oracle for live ids.
      if (session === undefined || !owns(identity, session)) {
        answerError(
          response,
          404,
          -32001,
          'Session not found: it was closed, never existed, or was opened by another principal; initialize a new session',
        );
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
    if (identity.principal === undefined) {
      answerError(
        response,
        500,
        -32603,
        'Internal error: the server cannot bind a session to this request: its authenticate named no subject and the request has no Authorization header (the host should return { subject } from authenticate)',
      );
      request.resume();
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse((await readBody(request, maxBodyBytes)).toString('utf8'));
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
    await openSession(identity, identity.principal, request, response, body);
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
      await Promise.all(
        [...sessions.keys()].map(async (id) => {
          const session = sessions.get(id);
          dropSession(id);
          await session?.transport.close().catch(() => undefined);
        }),
      );
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
        : 'each session authenticated and bound to its tenant and principal';
    announce(`${server.name}: serving ${domain.byName.size} tools over streamable HTTP at ${url} (${mode})`);
  }
  const sessionCount = (tenant?: string): number => {
    if (tenant === undefined) return sessions.size;
    let count = 0;
    for (const session of sessions.values()) if (session.tenant === tenant) count++;
    return count;
  };
  const retainedEventBytes = (): number => {
    let bytes = 0;
    for (const session of sessions.values()) bytes += session.events.retainedBytes;
    return bytes;
  };
  return { url, audit$: audit.asObservable(), sessionCount, retainedEventBytes, close };
}

/** A fixed-length key, so principals compare in constant time; the credential itself is never kept. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
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
