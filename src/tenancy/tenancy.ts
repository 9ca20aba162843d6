/**
 * Tenancy, in one place: a call runs for the tenant its session (a runtime actor, an in-process
 * registration, a served session or process) is bound to, and for no other (AI-03).
 *
 * - the tenant key: the name the tenant also goes by (`'org_id'` by default, agents.yaml's
 *   `tenant_key`), in a tool's context (`ctx.org_id`) and in a call's `_meta`;
 * - injection: the runtime puts the tenant in each call's `_meta` (`tenantMeta`) and a domain
 *   tool's context; the tool never reads it from its arguments;
 * - the tenant argument: an argument named like the tenant (`org_id`, `tenant`, `tenant_id` and
 *   the tenant key, in any case) is denied before anything runs, with `TENANT_ARGUMENT`, by the
 *   runtime's policy and by a domain server alike (`tenantArgumentIn`, `tenantArgumentMessage`);
 * - the `_meta` check: a call whose `_meta` names another tenant is denied with `TENANT_MISMATCH`
 *   (`claimedTenant`).
 */
import { DEFAULT_TENANT_KEY } from '../config/agents-file-schema.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';

/** Argument names that can never reach a tool: the tenant comes from the session (AI-03). */
export const DEFAULT_TENANT_ARGUMENT_NAMES: readonly string[] = Object.freeze(['org_id', 'tenant', 'tenant_id']);

// Context members a tenant key would shadow (and the one key an assignment cannot create).
const RESERVED_CONTEXT_KEYS: ReadonlySet<string> = new Set([
  'signal',
  'callId',
  'actor',
  'progress',
  'log',
  'elicit',
  'sample',
  'releaseStream',
  '__proto__',
]);

/** A session's tenancy settings, resolved and checked. */
export interface Tenancy {
  /** The name the tenant also goes by (`ctx.<tenantKey>`, `_meta.<tenantKey>`). */
  readonly tenantKey: string;
  /** The argument names denied, as given (the tenant key included). */
  readonly tenantNames: readonly string[];
  /** The same names lower-cased: an argument is denied in any case. */
  readonly deniedNames: ReadonlySet<string>;
}

/**
 * The tenant key (default `'org_id'`) and the denied argument names (default `org_id`, `tenant`,
 * `tenant_id`, plus the tenant key), checked. Throws `INVALID_ARGUMENT` for a tenant key that
 * would shadow a context member, or names that are not non-empty strings.
 *
 * @example
 * tenancyOf({ tenantKey: 'workspace' }).deniedNames; // Set { 'org_id', 'tenant', 'tenant_id', 'workspace' }
 */
export function tenancyOf(options: {
  readonly tenantKey?: string | undefined;
  readonly tenantArgumentNames?: readonly string[] | undefined;
}): Tenancy {
  const tenantKey: unknown = options.tenantKey ?? DEFAULT_TENANT_KEY;
  if (typeof tenantKey !== 'string' || tenantKey === '' || RESERVED_CONTEXT_KEYS.has(tenantKey)) {
    throw new McpActorsError(
      ErrorCode.INVALID_ARGUMENT,
      `tenantKey must be a non-empty string other than ${[...RESERVED_CONTEXT_KEYS].join(', ')} (they are context members), not ${JSON.stringify(tenantKey)}`,
      { details: { tenantKey } },
    );
  }
  const names: unknown = options.tenantArgumentNames ?? DEFAULT_TENANT_ARGUMENT_NAMES;
  if (!Array.isArray(names) || !names.every((name): name is string => typeof name === 'string' && name !== '')) {
    throw new McpActorsError(ErrorCode.INVALID_ARGUMENT, 'tenantArgumentNames must be an array of non-empty strings', {
      details: { tenantArgumentNames: names },
    });
  }
  const given: readonly string[] = names;
  const tenantNames = given.includes(tenantKey) ? given : [...given, tenantKey];
  return { tenantKey, tenantNames, deniedNames: new Set(tenantNames.map((name) => name.toLowerCase())) };
}

/**
 * The first argument that names the tenant (in any case), or undefined: such a call is denied
 * with `TENANT_ARGUMENT` before anything runs.
 */
export function tenantArgumentIn(args: Readonly<Record<string, unknown>>, deniedNames: ReadonlySet<string>): string | undefined {
  for (const key in args) {
    if (deniedNames.has(key) || deniedNames.has(key.toLowerCase())) return key;
  }
  return undefined;
}

/** What a denied tenant argument is told, by the runtime and by a domain server alike. */
export function tenantArgumentMessage(key: string, tool: string): string {
  return `tenant argument denied: "${key}" cannot be passed to "${tool}"; the tenant comes from the session, never from arguments. Remove the argument.`;
}

/** The `_meta` entries that carry the tenant into a call: `tenant` and the tenant key. */
export function tenantMeta(tenant: string, tenantKey: string): Readonly<Record<string, string>> {
  return Object.freeze({ tenant, [tenantKey]: tenant });
}

/**
 * The tenant a call's `_meta` names (`tenant` or the tenant key) when it is not `tenant`, else
 * undefined: such a call is denied with `TENANT_MISMATCH`. The one `_meta` check.
 */
export function claimedTenant(meta: Readonly<Record<string, unknown>> | undefined, tenantKey: string, tenant: string): unknown {
  if (meta === undefined) return undefined;
  const byName = meta.tenant;
  const byKey = meta[tenantKey];
  if (byName !== undefined && byName !== tenant) return byName;
  if (byKey !== undefined && byKey !== tenant) return byKey;
  return undefined;
}
