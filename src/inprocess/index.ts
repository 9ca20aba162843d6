export { TOOL_CATEGORIES, categoryAnnotations, categoryCapabilities, isToolCategory, toolCategory, type CategorizedTool, type CategoryDecision, type ToolCategory } from './tool-category.js';
export { DEFAULT_TENANT_ARGUMENT_NAMES } from '../tenancy/tenancy.js';
export { LOG_LEVELS, TOOL_NAME_PATTERN, defineTool, type DomainTool, type LogLevel, type ToolContext } from './define-tool.js';
export { defineServer, type DomainServer, type DomainServerDefinition } from './define-server.js';
export {
  registerInProcessServer,
  type CallIdentity,
  type LogEntry,
  type ProgressUpdate,
  type RegisterInProcessOptions,
} from './in-process-server.js';
export { toolContent, isToolContent, type ToolContent } from './tool-content.js';
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
