/**
 * `ActorHandle`: one activated agent actor — its tool set (resolved through its skills), its calls
 * (through the tool-call machine, with its tenant and permissions), its sandbox's changes and
 * rollback, and its deactivation.
 */
import { unsetVariablesError } from '../config/unset-variables.js';
import type { CallContext } from '../server/call-context.js';
import { waitFor, type Actor, type ActorRefFrom } from 'xstate';
import type { ActorConfig, AgentsConfig } from '../config/agents-file.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, messageOf } from '../errors/mcp-actors-error.js';
import { executeToolCall } from '../tool-call/execute-tool-call.js';
import { unknownToolOutcome } from '../tool-call/run-tool-call.js';
import { activationFailedError } from '../tool-call/server-down.js';
import { toolCallSteps } from '../tool-call/tool-call-steps.js';
import { CallSet } from '../registry/call-signal.js';
import { argsAreValid, invalidArgsError } from '../tool-call/tool-call-errors.js';
import type { DomainServer } from '../domain/define-server.js';
import { tenancyOf, tenantMeta } from '../tenancy/tenancy.js';
import { registerInProcessServer } from '../domain/in-process-server.js';
import type { ToolCategory } from '../domain/tool-category.js';
import { holderOf, type Activation, type ActivationReport, type actorMachine } from './actor-machine.js';
import type { runtimeMachine } from './runtime-machine.js';
import type { CallOutcome, FileChange, ToolCallInput } from '../tool-call/tool-call-io.js';
import { SkillRegistry } from '../registry/skill-registry.js';
import type { ToolDescriptor, ToolHandler } from '../registry/tool-descriptor.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import type { Redactor } from '../redaction/redactor.js';
import type { Checkpoint } from '../sandbox/checkpoint-store.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { SandboxWorkspace } from '../sandbox/sandbox-workspace.js';
import { callLabel } from '../inspector/actor-labels.js';
import { authorizeWith, policyDecision, type ApprovalCallback, type PolicyContext } from './permissions.js';
import { toolCategory } from '../domain/tool-category.js';
import type { RuntimeEvent } from './runtime-events.js';
import type { PoolEntry, ServerPool } from './server-pool.js';
import type { RuntimeTelemetry } from './runtime-telemetry.js';

/** A tool as an actor sees it: the registry record plus its permission category. */
export type ActorTool = ToolDescriptor & { readonly category: ToolCategory };

export interface ActorCallOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** What the runtime gives an actor when it activates it. */
export interface ActorWiring {
  readonly config: AgentsConfig;
  readonly spec: ActorConfig;
  readonly tenant: string;
  readonly id: string;
  readonly pool: ServerPool;
  readonly domainServers: ReadonlyMap<string, DomainServer>;
  readonly customTools: readonly { readonly descriptor: ToolDescriptor; readonly handler: ToolHandler }[];
  readonly workspace: SandboxWorkspace | undefined;
  /** The sandbox the workspace is of: told what the servers confined in it may not read. */
  readonly sandbox: Sandbox | undefined;
  readonly sandboxId: string | undefined;
  /** The runtime's actor: it spawns this actor's machine as its child, and the server supervisors. */
  readonly runtime: Actor<typeof runtimeMachine>;
  /** The child id of the actor's machine: its label in the inspector (`actor:triager:acme`). */
  readonly label: string;
  readonly inspected: boolean;
  readonly approve: ApprovalCallback | undefined;
  readonly emit: (event: RuntimeEvent) => void;
  readonly redactor: Redactor;
  /** The runtime's OpenTelemetry spans, when the host has the API: it traces the call's steps. */
  readonly telemetry?: RuntimeTelemetry | undefined;
  readonly defaultTimeoutMs: number;
  readonly onDeactivated: () => Promise<void>;
}

export class ActorHandle implements AsyncDisposable {
  readonly name: string;
  readonly tenant: string;
  readonly id: string;
  /** The actor's XState actor (a child of the runtime's), for inspection. */
  readonly actor: ActorRefFrom<typeof actorMachine>;
  private readonly registry = new ToolRegistry();
  private readonly skills: SkillRegistry;
  private readonly leases: PoolEntry[] = [];
  private readonly stateSubscriptions: { unsubscribe(): void }[] = [];
  private calls = 0;
  private toolset = new Map<string, ActorTool>();
  private toolsetStale = true;
  private activating: Promise<ActivationReport> | undefined;
  private deactivating: Promise<void> | undefined;
  /** Calls in flight, and who waits for them all to end (deactivate()). */
  private callsInFlight = 0;
  private readonly callsSettled: (() => void)[] = [];
  /** A call's names in the inspector (only a call that runs as a machine is asked for them). */
  private readonly callLabelOf = (input: ToolCallInput): { systemId: string; id: string } => ({
    systemId: `call:${input.callId}`,
    id: callLabel(this.name, this.tenant, Number(input.callId.slice(this.id.length + 1)), input.tool.name),
  });
  private readonly callSettled = (): void => {
    this.callsInFlight -= 1;
    if (this.callsInFlight === 0) for (const wake of this.callsSettled.splice(0)) wake();
  };
  /** Aborts every call in flight (shutdown): a call waiting for approval would otherwise wait forever. */
  private readonly callSignals = new CallSet();
  /** The permission policy's answer when nobody need be asked (then the call carries it). */
  private readonly decidePolicy: ReturnType<typeof policyDecision>;
  private readonly steps: ReturnType<typeof toolCallSteps>;
  private readonly meta: Readonly<Record<string, unknown>>;
  private readonly callContext: CallContext;

  constructor(private readonly wiring: ActorWiring) {
    this.name = wiring.spec.name;
    this.tenant = wiring.tenant;
    this.id = wiring.id;
    this.skills = new SkillRegistry(this.registry);
    this.registry.changes$.subscribe(() => (this.toolsetStale = true));
    const tenantKey = wiring.spec.tenantKey;
    this.callContext = Object.freeze({ actor: this.name, tenant: this.tenant });
    this.meta = tenantMeta(wiring.tenant, tenantKey);
    const workspace = wiring.workspace;
    const policy: PolicyContext = {
      actor: this.name,
      tenant: this.tenant,
      policy: wiring.spec.permissions,
      tenantArgumentNames: tenancyOf({ tenantKey }).deniedNames,
      approve: wiring.approve,
      // Approval is asked only once the paths are known to stay in the sandbox (the rewrite under
      // the lock still decides; this one only spares the person a question with a known answer).
      // In a sandbox the arguments are validated as the tool receives them, after rewriting: a
      // call that must ask checks that much before the question (and the call again, under the lock).
      // A promise's executor: what it throws (the rewrite's own path errors too) is the rejection.
      beforeApproval: workspace
        ? (call) =>
            new Promise<void>((resolve) => {
              const args = workspace.rewriter.rewriteArgs(call.args, call.tool.inputSchema);
              if (!argsAreValid(call, args)) throw invalidArgsError(call, args);
              resolve();
            })
        : undefined,
    };
    this.decidePolicy = policyDecision(policy);
    const steps = toolCallSteps({ registry: this.registry, workspace: wiring.workspace, authorize: authorizeWith(policy) });
    this.steps = wiring.telemetry ? wiring.telemetry.traceSteps(steps) : steps;
    // The runtime's machine spawns the actor's machine (its `agentActor`, whose activation work is
    // this handle's activateServers / releaseServers), owns it, and answers with `actor.spawned`.
    // The runtime is asked from the host's turn, not from inside a transition: the answer has come
    // by the time send returns, or the runtime has shut down.
    let spawned: ActorRefFrom<typeof actorMachine> | undefined;
    const answered = wiring.runtime.on('actor.spawned', (event) => {
      if (event.id === wiring.label) spawned = event.ref as ActorRefFrom<typeof actorMachine>;
    });
    wiring.runtime.send({
      type: 'actor.spawn',
      id: wiring.label,
      systemId: this.holder,
      input: { name: this.name, tenant: this.tenant, id: this.id },
    });
    answered.unsubscribe();
    if (!spawned) {
      throw new McpActorsError(
        ErrorCode.RUNTIME_SHUT_DOWN,
        `actor "${this.name}" could not be spawned: the runtime has shut down; create a new runtime`,
      );
    }
    this.actor = spawned;
    const emitState = (value: unknown): void =>
      wiring.emit({ type: 'actor.state', actor: this.name, tenant: this.tenant, state: String(value) });
    emitState(this.actor.getSnapshot().value);
    this.actor.subscribe((snapshot) => emitState(snapshot.value));
  }

  /** The actor's systemId, and its name as a holder of server actors. */
  private get holder(): string {
    return holderOf({ id: this.id });
  }

  /** Activates the actor; rejects with ACTIVATION_FAILED when a required server does not start. */
  activate(): Promise<ActivationReport> {
    this.activating ??= (async () => {
      this.actor.send({ type: 'actor.activate' });
      const snapshot = await this.settle(['active', 'inactive']);
      const report = snapshot.context.report;
      if (snapshot.value === 'active' && report !== undefined) return report;
      throw (
        snapshot.context.error ??
        new McpActorsError(
          ErrorCode.ACTIVATION_FAILED,
          `actor "${this.name}" was deactivated before it finished activating; activate it again`,
        )
      );
    })();
    return this.activating;
  }

  /** The tools the actor's skills resolve to, with capabilities and permission category. */
  tools(): ActorTool[] {
    if (this.toolsetStale) this.refreshToolset();
    return [...this.toolset.values()];
  }

  /** What activation found: servers up, and servers whose tools are unavailable until they recover. */
  get activation(): ActivationReport | undefined {
    return this.actor.getSnapshot().context.report;
  }

  /**
   * Calls a tool of the actor's tool set through the tool-call machine: validated, authorized by
   * the actor's permissions, path-rewritten, checkpointed and rolled back as needed. Never throws;
   * the outcome says how it ended.
   */
  call(toolName: string, args: Readonly<Record<string, unknown>> = {}, options: ActorCallOptions = {}): Promise<CallOutcome> {
    const sequence = ++this.calls;
    const callId = `${this.id}#${sequence}`;
    this.callsInFlight += 1;
    // runCall never rejects, and counts its own end: a counter rather than a set of promises.
    return this.runCall(callId, toolName, args, options);
  }

  private async runCall(
    callId: string,
    toolName: string,
    args: Readonly<Record<string, unknown>>,
    options: ActorCallOptions,
  ): Promise<CallOutcome> {
    try {
      const { emit } = this.wiring;
      if (this.deactivating || this.actor.getSnapshot().value !== 'active') {
        return this.audited(undefined, {
          ...unknownToolOutcome(callId, toolName),
          error: new McpActorsError(ErrorCode.NOT_CONNECTED, `actor "${this.name}" is not active; activate it before calling tools`, {
            details: { actor: this.name, tool: toolName },
          }),
        });
      }
      if (this.toolsetStale) this.refreshToolset();
      const tool = this.toolset.get(toolName);
      if (!tool)
        return this.audited(undefined, unknownToolOutcome(callId, toolName, [...this.toolset.keys()], this.activation?.unavailable));
      this.wiring.redactor.addArguments(toolName, args);
      const input: ToolCallInput = {
        callId,
        tool,
        args,
        timeoutMs: options.timeoutMs ?? this.wiring.defaultTimeoutMs,
        meta: this.meta,
        // The call's context: a question the server asks back while it runs is told whose call it
        // is. Passed down with the call, not through AsyncLocalStorage: on Node 20 a store in use
        // turns on async hooks for every promise of the process.
        context: this.callContext,
        sandboxed: this.wiring.workspace !== undefined,
        startedAt: Date.now(),
        authorization: this.decidePolicy(tool, args),
      };
      emit({ type: 'call.started', callId, actor: this.name, tenant: this.tenant, tool: toolName, category: tool.category });
      let outcome: CallOutcome;
      // A signal of the call's own, unlinked when it settles: neither the actor nor the caller keeps
      // a listener per call (see tool-call/call-signal.ts).
      const call = this.callSignals.open(options.signal);
      try {
        outcome = await executeToolCall(this.steps, input, {
          signal: call,
          parent: this.actor,
          inspected: this.wiring.inspected,
          label: this.callLabelOf,
        });
      } catch (cause) {
        // The call path ends every call with an outcome; this only catches a defect in it.
        outcome = {
          callId,
          tool: toolName,
          status: 'failed',
          result: undefined,
          changes: [],
          checkpointId: undefined,
          error: new McpActorsError(ErrorCode.TOOL_FAILED, `the call of "${toolName}" failed unexpectedly: ${messageOf(cause)}`, { cause }),
          durationMs: Date.now() - input.startedAt,
        };
      } finally {
        call.unlink();
      }
      return this.audited(tool, outcome);
    } finally {
      this.callSettled();
    }
  }

  /** Every call leaves an audit record on events$, and denials and violations an event of their own. */
  private audited(tool: ActorTool | undefined, ended: CallOutcome): CallOutcome {
    const { emit, redactor } = this.wiring;
    // A failed call's result is the server's error text (often its error again): redacted like the error.
    const outcome = ended.error ? { ...ended, error: redactor.redactError(ended.error), result: redactor.redact(ended.result) } : ended;
    const { callId } = outcome;
    const toolName = outcome.tool;
    emit({
      type: 'call.ended',
      callId,
      actor: this.name,
      tenant: this.tenant,
      tool: toolName,
      category: tool?.category,
      status: outcome.status,
      durationMs: outcome.durationMs,
      checkpointId: outcome.checkpointId,
      errorCode: outcome.error?.code,
    });
    const error = outcome.error;
    if (tool && error?.code === ErrorCode.CAPABILITY_VIOLATION) {
      emit({
        type: 'capability.violation',
        callId,
        actor: this.name,
        tenant: this.tenant,
        tool: toolName,
        changes: outcome.changes,
        message: error.message,
      });
    } else if (tool && error?.code === ErrorCode.SANDBOX_ESCAPE) {
      const links = (error.details.links ?? []) as readonly { path: string; target: string; resolved: string }[];
      emit({ type: 'sandbox.escape', callId, actor: this.name, tenant: this.tenant, tool: toolName, links, message: error.message });
    } else if (
      tool &&
      outcome.status === 'rejected' &&
      (error?.code === ErrorCode.PERMISSION_DENIED || error?.code === ErrorCode.TENANT_ARGUMENT)
    ) {
      emit({
        type: 'permission.denied',
        callId,
        actor: this.name,
        tenant: this.tenant,
        tool: toolName,
        category: tool.category,
        rule: String(error.details.rule),
        message: error.message,
      });
    }
    return outcome;
  }

  /** Rolls the sandbox back to a checkpoint (default: as it was when the sandbox was opened). */
  async rollback(checkpointId?: string): Promise<void> {
    const workspace = this.requireWorkspace('rollback()');
    await workspace.rollbackTo(checkpointId);
  }

  /** Every checkpoint of the sandbox so far, oldest first; any of them can be rolled back to. */
  checkpoints(): readonly Checkpoint[] {
    return this.requireWorkspace('checkpoints()').checkpoints.list();
  }

  /** The sandbox's change set since it was opened (added, modified, deleted files with hashes). */
  async changes(): Promise<FileChange[]> {
    return this.requireWorkspace('changes()').changes();
  }

  /** Stops using the actor's servers (each stops when no other actor uses it). */
  /** Cancels every call in flight; they end (cancelled) and deactivate() then goes on. */
  cancelCalls(reason: string): void {
    this.callSignals.cancelAll(new McpActorsError(ErrorCode.CANCELLED, reason));
  }

  /**
   * Stops using the actor's servers (each stops when no other actor uses it). Waits for an
   * activation under way and for the calls in flight (cancel them first with cancelCalls());
   * calling it again returns the same promise.
   */
  deactivate(): Promise<void> {
    this.deactivating ??= (async () => {
      if (this.activating) await this.activating.catch(() => undefined);
      if (this.callsInFlight > 0) await new Promise<void>((resolve) => this.callsSettled.push(resolve));
      if (this.actor.getSnapshot().value === 'active') {
        this.actor.send({ type: 'actor.deactivate' });
        await this.settle(['inactive']);
      }
      // The runtime's machine owns the actor's and stops it.
      this.wiring.runtime.send({ type: 'actor.stop', id: this.wiring.label });
      await this.wiring.onDeactivated();
    })();
    return this.deactivating;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.deactivate();
  }

  /** The actor machine's `activateActor` work (the runtime provides it): acquires servers, registers tools. */
  async activateServers(): Promise<Activation> {
    const { config, spec, pool, workspace } = this.wiring;
    for (const { descriptor, handler } of this.wiring.customTools) this.registry.register(descriptor, handler);
    for (const skillName of spec.skills) {
      const skill = config.skills[skillName];
      if (skill === undefined)
        throw new McpActorsError(
          ErrorCode.NOT_FOUND,
          `actor "${this.name}" names skill "${skillName}", which the configuration does not define`,
        );
      await this.skills.define({
        name: skill.name,
        description: skill.description,
        mcpServers: skill.mcpServers,
        tools: skill.tools,
        agentSkills: skill.agentSkills,
      });
    }
    const wanted = this.skills.serversOf(spec.skills);
    const started: string[] = [];
    const unavailable: { server: string; error: McpActorsError }[] = [];
    const attempts = wanted.map(async ({ server, required }) => {
      const domain = this.wiring.domainServers.get(server);
      if (domain) {
        registerInProcessServer(this.registry, domain, {
          tenant: this.tenant,
          tenantKey: spec.tenantKey,
          actor: this.name,
          // A tool's ctx.progress / ctx.log become runtime events, as they become notifications when served.
          onProgress: (update, call) =>
            this.wiring.emit({
              type: 'call.progress',
              actor: this.name,
              tenant: call.tenant,
              tool: call.tool,
              callId: call.callId,
              ...update,
            }),
          onLog: (entry, call) =>
            this.wiring.emit({ type: 'call.log', actor: this.name, tenant: call.tenant, tool: call.tool, callId: call.callId, ...entry }),
        });
        started.push(server);
        return;
      }
      const unset = config.unsetVariables?.[server];
      if (unset !== undefined) {
        const error = unsetVariablesError(server, unset);
        if (required) throw error;
        unavailable.push({ server, error });
        return;
      }
      const serverConfig = config.servers[server];
      if (serverConfig === undefined)
        throw new McpActorsError(
          ErrorCode.NOT_FOUND,
          `skill server "${server}" of actor "${this.name}" is not defined in the configuration's servers`,
        );
      // Shared by reference among actors of one tenant and sandbox: their server supervisor owns it.
      const lease = await pool.acquire(serverConfig, {
        tenant: this.tenant,
        sandboxRoot: workspace?.roots.root,
        projectRoot: workspace?.roots.logicalRoot,
        sandboxId: this.wiring.sandboxId,
        sandbox: this.wiring.sandbox,
        actor: this.actor,
        overrides: Object.fromEntries(
          Object.entries(config.tools)
            .filter(([name]) => name.startsWith(`${server}/`))
            .map(([name, entry]) => [name.slice(server.length + 1), entry.overrides]),
        ),
      });
      this.leases.push(lease);
      try {
        await lease.adapter.connect();
        await lease.adapter.registerTools(this.registry, { namespace: server });
        started.push(server);
      } catch (cause) {
        const error = activationFailedError(server, this.name, cause, required);
        if (required) throw error;
        unavailable.push({ server, error });
        this.registerWhenRecovered(lease);
      }
    });
    const results = await Promise.allSettled(attempts);
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) {
      await this.releaseServers();
      throw failure.reason;
    }
    this.refreshToolset();
    return { report: { servers: started, unavailable } };
  }

  /** A server that did not start at activation joins the tool set once it is RUNNING. */
  private registerWhenRecovered(lease: PoolEntry): void {
    let trying = false;
    const subscription = lease.adapter.client.state$.subscribe((state) => {
      if (state !== 'RUNNING' || trying) return;
      trying = true;
      void (async () => {
        try {
          await lease.adapter.connect();
          await lease.adapter.registerTools(this.registry, { namespace: lease.server });
          this.refreshToolset();
          subscription.unsubscribe();
        } catch {
          // Still not usable: the next time it is RUNNING, try again.
        } finally {
          trying = false;
        }
      })();
    });
    this.stateSubscriptions.push(subscription);
  }

  /** The actor machine's `deactivateActor` work: lets go of every server (each stops when no other actor holds it). */
  async releaseServers(): Promise<void> {
    for (const subscription of this.stateSubscriptions.splice(0)) subscription.unsubscribe();
    const leases = this.leases.splice(0).reverse();
    for (const lease of leases) lease.adapter.unregisterFrom(this.registry);
    await Promise.all(leases.map((lease) => this.wiring.pool.release(lease, this.actor)));
    this.toolset = new Map();
  }

  private refreshToolset(): void {
    this.toolsetStale = false;
    const resolved = this.skills.resolve(this.wiring.spec.skills);
    this.toolset = new Map(resolved.tools.map((tool) => [tool.name, { ...tool, category: toolCategory(tool).category }]));
  }

  private requireWorkspace(what: string): SandboxWorkspace {
    if (this.wiring.workspace) return this.wiring.workspace;
    throw new McpActorsError(ErrorCode.INVALID_ARGUMENT, `${what} needs a sandbox; activate the actor with { sandbox }`, {
      details: { actor: this.name },
    });
  }

  /** The first snapshot in one of `states` (or the last one, should the actor stop first). */
  private async settle(states: readonly string[]): Promise<ReturnType<typeof this.actor.getSnapshot>> {
    try {
      return await waitFor(this.actor, (snapshot) => states.includes(snapshot.value) || snapshot.status !== 'active');
    } catch {
      return this.actor.getSnapshot();
    }
  }
}
