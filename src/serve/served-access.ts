/**
 * The rules a served domain server applies to every `tools/call`, whatever the transport:
 * the tenant comes from the session (AI-03), a `_meta` tenant that disagrees is denied; a
 * `restricted` tool needs a scope that names it; an `execute` tool follows the host's policy.
 * Each call then leaves one audit record (AW-14).
 */
import type { ExecutePolicy } from '../config/agents-file-schema.js';
import type { DomainTool } from '../domain/define-tool.js';
import type { ToolCategory } from '../domain/tool-category.js';

/** Who a served session is: fixed when the session (HTTP) or the process (stdio) starts. */
export interface ServedSession {
  readonly tenant: string;
  /** What the credential allows, e.g. `tool:roster_purge`. */
  readonly scopes: readonly string[];
  /** Who the calls are made for (`ctx.actor`): the authenticated subject, never a value the client sends. */
  readonly actor?: string;
}

/** What a policy function sees of a call. */
export interface AccessRequest {
  readonly tenant: string;
  readonly scopes: readonly string[];
  readonly tool: string;
  readonly domain: string;
  readonly category: ToolCategory;
}

/**
 * How a served server gates `execute` tools: `'allow'` (the default) and `'deny'` as in an actor's
 * `ExecutePolicy`, `'scope'` (the same scope rule as `restricted`: `tool:<name>`), or a function
 * that says yes or no. There is no `'ask'`: a served server has no person to ask; its callers'
 * own runtimes ask. Named apart from `ExecutePolicy` (agents.yaml's) so both can be imported.
 */
export type ServedExecutePolicy = Exclude<ExecutePolicy, 'ask'> | 'scope' | ((request: AccessRequest) => boolean);

/** The category rules of a served server. */
export interface ServePolicy {
  readonly execute?: ServedExecutePolicy;
}

export type AccessDecision = { readonly allowed: true } | { readonly allowed: false; readonly rule: string; readonly reason: string };

const ALLOWED: AccessDecision = Object.freeze({ allowed: true });

/** The scope that grants a `restricted` tool (and an `execute` tool under `execute: 'scope'`). */
export function scopeFor(toolName: string): string {
  return `tool:${toolName}`;
}

/**
 * Whether `session` may call `tool` by its category. Read and propose tools are always allowed:
 * a proposal changes nothing until someone approves it through an execute tool.
 *
 * @example
 * decideAccess(purge, { tenant: 'acme', scopes: [] }, {});
 * // { allowed: false, rule: 'restricted-needs-scope', reason: 'needs the scope "tool:roster_purge"...' }
 */
export function decideAccess(tool: DomainTool, session: ServedSession, policy: ServePolicy): AccessDecision {
  const needed = scopeFor(tool.name);
  if (tool.category === 'restricted') {
    return session.scopes.includes(needed)
      ? ALLOWED
      : {
          allowed: false,
          rule: 'restricted-needs-scope',
          reason: `"${tool.name}" is a restricted tool and needs the scope "${needed}", which this session's credential does not carry; ask for a token with that scope`,
        };
  }
  if (tool.category !== 'execute') return ALLOWED;
  const execute = policy.execute ?? 'allow';
  if (execute === 'allow') return ALLOWED;
  if (execute === 'deny') {
    return {
      allowed: false,
      rule: 'execute-denied',
      reason: `"${tool.name}" is an execute tool and this server's policy denies execute tools; use a propose tool, or serve with execute: 'allow'`,
    };
  }
  if (execute === 'scope') {
    return session.scopes.includes(needed)
      ? ALLOWED
      : {
          allowed: false,
          rule: 'execute-needs-scope',
          reason: `"${tool.name}" is an execute tool and this server's policy needs the scope "${needed}", which this session's credential does not carry`,
        };
  }
  let allowed: boolean;
  try {
    // Only `true` allows: a JavaScript host's truthy value (a promise, say) does not.
    const answer: unknown = execute({
      tenant: session.tenant,
      scopes: session.scopes,
      tool: tool.name,
      domain: tool.domain,
      category: tool.category,
    });
    allowed = answer === true;
  } catch {
    allowed = false;
  }
  return allowed
    ? ALLOWED
    : {
        allowed: false,
        rule: 'execute-policy',
        reason: `"${tool.name}" is an execute tool and this server's execute policy denied it for this session`,
      };
}

/** How a served call ended; `denied`: a rule said no (a tenant argument or `_meta` tenant, a scope, the execute policy) and the tool never ran. */
export const AUDIT_OUTCOMES = ['succeeded', 'failed', 'denied', 'cancelled'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** One call at the served boundary. Never holds a credential, an argument or a result. */
export interface ServedAuditRecord {
  /** ISO time the call arrived. */
  readonly at: string;
  readonly transport: 'http' | 'stdio';
  readonly tenant: string;
  /** The MCP tool name as called (also for an unknown tool). */
  readonly tool: string;
  /** Undefined for an unknown tool. */
  readonly category: ToolCategory | undefined;
  readonly outcome: AuditOutcome;
  /** The tool error code of a failed or denied call (PERMISSION_DENIED, TENANT_MISMATCH, TENANT_ARGUMENT, VALIDATION, ...). */
  readonly errorCode?: string;
  /** The rule that denied the call (`restricted-needs-scope`, `tenant-mismatch`, `tenant-argument`, ...). */
  readonly rule?: string;
  readonly durationMs: number;
  /** The HTTP session, when served over HTTP. */
  readonly sessionId?: string;
  readonly callId?: string;
}

/** Where audit records go; a throwing sink never affects the call. */
export type AuditSink = (record: ServedAuditRecord) => void;
