// Serving a domain server over stdio or HTTP: the served session, its access policy and audit.
export { SCOPES_ENV, TENANT_ENV, serveOverStdio, toCallToolResult, type ServeOptions, type ServedDomainServer } from './serve-stdio.js';
export { serveOverHttp, type Authenticate, type Authenticated, type HttpServedDomainServer, type ServeHttpOptions } from './serve-http.js';
export type { ServeCommonOptions } from './domain-mcp-server.js';
export {
  AUDIT_OUTCOMES,
  decideAccess,
  scopeFor,
  type AccessDecision,
  type AccessRequest,
  type AuditOutcome,
  type ServedAuditRecord,
  type AuditSink,
  type ServedExecutePolicy,
  type ServePolicy,
  type ServedSession,
} from './served-access.js';
export { MemoryEventStore, type MemoryEventStoreOptions } from './memory-event-store.js';
