/**
 * An actor's permission policy (ADR-004-F's categories): `read` and `propose` run; `execute` runs
 * if the policy allows it — through the host's approval callback when the policy says `ask`;
 * `restricted` only with an explicit grant. Tenant-named arguments are denied before anything,
 * since the tenant comes from the session, never from a tool's arguments.
 */
import { ErrorCode } from '../errors/codes.js';
import { SOURCE_WORDS, toolCategory, type ToolCategory } from '../domain/tool-category.js';
import { tenantArgumentIn, tenantArgumentMessage } from '../tenancy/tenancy.js';
import type { Authorization, ToolCallInput } from '../tool-call/tool-call-io.js';
import type { ToolDescriptor } from '../registry/tool-descriptor.js';
// The one ExecutePolicy is agents.yaml's (from EXECUTE_POLICIES); a served server's is ServedExecutePolicy.
import type { ExecutePolicy } from '../config/agents-file-schema.js';

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
  /** Why the tool has its category, i.e. why it counts as writing: `tool.provenance` in a sentence. */
  readonly because: string;
  readonly destructive: boolean;
  /** Why it is (or is not) destructive, from `tool.provenance.destructive`. */
  readonly destructiveBecause: string;
  readonly args: Readonly<Record<string, unknown>>;
}

export type ApprovalCallback = (request: ApprovalRequest) => boolean | Promise<boolean>;

/** The reason a denial of an `execute` tool gives: why it counts as writing. */
function writingReason(tool: ToolDescriptor): string {
  return `"${tool.name}" counts as writing because of ${toolCategory(tool).because}`;
}

export interface PolicyContext {
  readonly actor: string;
  readonly tenant: string;
  readonly policy: PermissionPolicy;
  /** Lower-case argument names denied (`tenancyOf(...).deniedNames`). */
  readonly tenantArgumentNames: ReadonlySet<string>;
  readonly approve: ApprovalCallback | undefined;
  /**
   * Checks that must pass before a person is asked (the sandbox's path checks): a call that would
   * be denied anyway is denied without asking. Rejects with the denial.
   */
  readonly beforeApproval?: ((call: ToolCallInput) => unknown) | undefined;
}

const ALLOWED: Authorization = { allowed: true };

/**
 * The policy's answer when it needs nobody asked: allowed (read, propose, a granted restricted
 * tool, execute under `allow`) or denied (a tenant argument, an ungranted restricted tool,
 * execute under `deny`, or `ask` with no approval callback); undefined when a person must be
 * asked. Pure: the tool-call step list takes it as a decision, with no I/O.
 */
export function policyDecision(
  context: PolicyContext,
): (tool: ToolDescriptor, args: Readonly<Record<string, unknown>>) => Authorization | undefined {
  return (tool, args) => {
    const tenantArgument = tenantArgumentIn(args, context.tenantArgumentNames);
    if (tenantArgument !== undefined) {
      return {
        allowed: false,
        code: ErrorCode.TENANT_ARGUMENT,
        rule: 'tenant comes from the session',
        reason: tenantArgumentMessage(tenantArgument, tool.name),
      };
    }
    const { category } = toolCategory(tool);
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
      return {
        allowed: false,
        rule: 'permissions.execute: deny',
        reason: `this actor may not run execute tools, and ${writingReason(tool)}`,
      };
    }
    if (!context.approve) {
      return {
        allowed: false,
        rule: 'permissions.execute: ask',
        reason: `execute tools need approval and the host gave no approval callback (createRuntime({ approve })); ${writingReason(tool)}`,
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
    const approve = context.approve;
    // policyDecision answers whenever there is no callback to ask.
    if (decided !== undefined || approve === undefined)
      return decided ?? { allowed: false, rule: 'permissions.execute: ask', reason: 'no approval callback' };
    const { category, because } = toolCategory(call.tool);
    const { capabilities, provenance } = call.tool;
    return Promise.resolve(context.beforeApproval?.(call))
      .then(() =>
        approve({
          actor: context.actor,
          tenant: context.tenant,
          tool: call.tool,
          category,
          because,
          destructive: capabilities.destructive,
          destructiveBecause: `${provenance.destructive.source === 'default' ? 'MCP default' : SOURCE_WORDS[provenance.destructive.source]}: ${provenance.destructive.detail}`,
          args: call.args,
        }),
      )
      .then((approved) =>
        approved
          ? ALLOWED
          : { allowed: false, rule: 'permissions.execute: ask', reason: `the host did not approve the call (${writingReason(call.tool)})` },
      );
  };
}
