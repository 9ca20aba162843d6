/**
 * An actor's permission policy (ADR-004-F's categories): `read` and `propose` run; `execute` runs
 * if the policy allows it — through the host's approval callback when the policy says `ask`;
 * `restricted` only with an explicit grant. Tenant-named arguments are refused before anything,
 * since the tenant comes from the session, never from a tool's arguments.
 */
import { ErrorCode } from '../errors/codes.js';
import type { ToolCategory } from '../inprocess/tool-category.js';
import { categoryOfCapability, isToolCategory } from '../inprocess/tool-category.js';
import type { Authorization, ToolCallInput } from '../tool-call/tool-call-io.js';
import type { ToolDescriptor } from '../registry/tool-descriptor.js';

export type ExecutePolicy = 'allow' | 'ask' | 'deny';

export interface PermissionPolicy {
  readonly execute: ExecutePolicy;
  /** Full tool names allowed although restricted. */
  readonly restricted: readonly string[];
}

/** What the host's approval callback is asked. */
export interface ApprovalRequest {
  readonly actor: string;
  readonly tenant: string;
  readonly tool: ToolDescriptor;
  readonly category: ToolCategory;
  readonly destructive: boolean;
  readonly args: Readonly<Record<string, unknown>>;
}

export type ApprovalCallback = (request: ApprovalRequest) => boolean | Promise<boolean>;

/** A tool's category: declared by an in-process tool, else from its capabilities (never restricted). */
export function categoryOf(tool: ToolDescriptor): ToolCategory {
  const declared = tool.sourceMetadata.category;
  return isToolCategory(declared) ? declared : categoryOfCapability(tool.capabilities);
}

export interface PolicyContext {
  readonly actor: string;
  readonly tenant: string;
  readonly policy: PermissionPolicy;
  readonly tenantArgumentNames: ReadonlySet<string>;
  readonly approve: ApprovalCallback | undefined;
  /**
   * Checks that must pass before a person is asked (the sandbox's path checks): a call that would
   * be refused anyway is refused without asking. Rejects with the refusal.
   */
  readonly beforeApproval?: ((call: ToolCallInput) => unknown) | undefined;
}

const ALLOWED: Authorization = { allowed: true };

/**
 * The policy's answer when it needs nobody asked: allowed (read, propose, a granted restricted
 * tool, execute under `allow`) or refused (a tenant argument, an ungranted restricted tool,
 * execute under `deny`, or `ask` with no approval callback); undefined when a person must be
 * asked. Pure: the tool-call step list takes it as a decision, with no I/O.
 */
export function policyDecision(context: PolicyContext): (tool: ToolDescriptor, args: Readonly<Record<string, unknown>>) => Authorization | undefined {
  return (tool, args) => {
    for (const key of Object.keys(args)) {
      if (context.tenantArgumentNames.has(key.toLowerCase())) {
        return {
          allowed: false,
          code: ErrorCode.TENANT_ARGUMENT,
          rule: 'tenant comes from the session',
          reason: `argument "${key}" names the tenant; the runtime injects the tenant from the session, so remove it from the arguments`,
        };
      }
    }
    const category = categoryOf(tool);
    if (category === 'read' || category === 'propose') return ALLOWED;
    if (category === 'restricted') {
      return context.policy.restricted.includes(tool.name)
        ? ALLOWED
        : {
            allowed: false,
            rule: 'permissions.restricted',
            reason: `"${tool.name}" is restricted; grant it explicitly in the actor's permissions.restricted`,
          };
    }
    if (context.policy.execute === 'allow') return ALLOWED;
    if (context.policy.execute === 'deny') {
      return { allowed: false, rule: 'permissions.execute: deny', reason: 'this actor may not run execute tools' };
    }
    if (!context.approve) {
      return {
        allowed: false,
        rule: 'permissions.execute: ask',
        reason: 'execute tools need approval and the host gave no approval callback (createRuntime({ approve }))',
      };
    }
    return undefined;
  };
}

/** The whole policy: its decision, else the host's approval callback (after `beforeApproval`). */
export function authorizeWith(context: PolicyContext): (call: ToolCallInput) => Authorization | Promise<Authorization> {
  const decide = policyDecision(context);
  return (call) => {
    const decided = decide(call.tool, call.args);
    if (decided !== undefined) return decided;
    const approve = context.approve!; // policyDecision answers when there is no callback
    const category = categoryOf(call.tool);
    return Promise.resolve(context.beforeApproval?.(call))
      .then(() =>
        approve({ actor: context.actor, tenant: context.tenant, tool: call.tool, category, destructive: call.tool.capabilities.destructive, args: call.args }),
      )
      .then((approved) =>
      approved ? ALLOWED : { allowed: false, rule: 'permissions.execute: ask', reason: 'the host did not approve the call' },
    );
  };
}
