/**
 * `createRuntime`: what a host embeds. It takes the configuration of an `agents.yaml` (or the same
 * as objects), activates actors for a tenant and a sandbox, and shuts everything down so that no
 * process it spawned is left alive.
 */
import { createHash } from 'node:crypto';
import { Subject, type Observable } from 'rxjs';
import { createActor, fromPromise, waitFor, type Actor } from 'xstate';
import { retireReaper } from '../process/process-groups.js';
import { agentsConfigFromObject, loadAgentsFile, type ActorConfig, type AgentsConfig } from '../config/agents-file.js';
import type { AgentsFileConfig } from '../config/agents-file-config.js';
import { closest } from '../config/suggest.js';
import { DEFAULT_TENANT_KEY } from '../config/agents-file-schema.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, isMcpActorsError, messageOf } from '../errors/mcp-actors-error.js';
import type { DomainServer } from '../domain/define-server.js';
import { actorMachine } from './actor-machine.js';
import { runtimeMachine } from './runtime-machine.js';
import type { ServerState } from '../server/server-states.js';
import type { ToolDescriptor, ToolHandler } from '../registry/tool-descriptor.js';
import { InspectorServer } from '../inspector/inspector-server.js';
import { RUNTIME_LABEL, actorLabel } from '../inspector/actor-labels.js';
import { inspectServerOptions, isInspectionObserver, openInspector, type InspectSetting } from '../inspector/open-inspector.js';
import { Redactor, type ArgumentRedaction } from '../redaction/redactor.js';
import { Sandbox, type LeftSandbox } from '../sandbox/sandbox.js';
import { SandboxWorkspace, type WorkspaceRoots } from '../sandbox/sandbox-workspace.js';
import { probeConfinement } from '../process/confinement/probe.js';
import { ActorHandle } from './actor-handle.js';
import type { ApprovalCallback } from './permissions.js';
import type { RuntimeEvent } from './runtime-events.js';
import { ServerPool, type PoolEntry } from './server-pool.js';
import { confinementStatus, type ConfinementStatus } from '../process/confinement/confinement-status.js';
import type { RuntimeElicitHandler, RuntimeSampleHandler } from '../server/server-requests.js';
import type { ServerAuth } from '../auth/server-auth.js';
import type { ServerActors } from '../server/server-actors.js';
import { traceRuntime, type RuntimeTelemetry } from './runtime-telemetry.js';

export interface RuntimeOptions {
  /** The configuration as objects (the file's keys; camelCase accepted), or an already loaded one. */
  readonly config?: AgentsFileConfig | AgentsConfig;
  /** Or: the path of an agents.yaml. */
  readonly file?: string;
  /** In-process domain servers, named in skills' mcp_servers like MCP servers. */
  readonly domainServers?: readonly DomainServer[];
  /** Built-in and custom tools, named in skills' tools by full name. */
  readonly tools?: readonly { readonly descriptor: ToolDescriptor; readonly handler: ToolHandler }[];
  /** Asked before an `execute` tool runs when the actor's policy is `ask`. */
  readonly approve?: ApprovalCallback;
  /**
   * Watch the supervision tree in the Stately inspector: `true` or `{ port }` runs an inspector
   * server on 127.0.0.1 (its URL is printed once; `shutdown()` closes it and every viewer), or pass
   * any XState inspection observer of your own (e.g. `@statelyai/inspect`'s `inspector.inspect`).
   * What is inspected is redacted by the built-in server; an observer of your own sees it raw.
   */
  readonly inspect?: InspectSetting;
  /** Default deadline of a tool call (default 60 s). */
  readonly callTimeoutMs?: number;
  /** Where `${VAR}` references are read from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Which tool-call arguments are secret: their values are then redacted, like `env` and `headers`
   * values, from inspection, events, status and errors.
   */
  readonly redactArgument?: ArgumentRedaction;
  /**
   * The OAuth client provider of each remote server (sse / streamable-http), or `undefined` for
   * none: `auth: (server) => server.name === 'github' ? provider : undefined`.
   */
  readonly auth?: ServerAuth;
  /** Answers servers' `elicitation/create`, told the tenant and the actor it concerns; declared only when given. */
  readonly onElicit?: RuntimeElicitHandler;
  /** Answers servers' `sampling/createMessage`, told the tenant and the actor it concerns; declared only when given. */
  readonly onSample?: RuntimeSampleHandler;
  /**
   * Per server name (as in the config), the actors its supervision runs on instead of spawning its
   * command: e.g. `{ flaky: inProcessFixture({ crashAfter: 2 }).actors }` from `mcp-actors/testing`,
   * or `{ connectServer: connectOverTransport(() => transport) }` for a transport of your own. The
   * server keeps its config entry (timeouts, restart policy); its `command` is not run.
   */
  readonly serverActors?: Readonly<Record<string, Partial<ServerActors>>>;
}

export interface ActivateOptions {
  /** The tenant the actor works for; injected into every call, never taken from arguments. */
  readonly tenant: string;
  /** The sandbox the actor works in (from `Sandbox.create` or `runtime.createSandbox`). */
  readonly sandbox?: Sandbox | undefined;
}

/** One server actor, for status displays. */
export interface ServerStatus {
  readonly server: string;
  readonly tenant: string;
  readonly sandbox: string | undefined;
  readonly state: ServerState;
  readonly restarts: number;
  readonly lastError: string | undefined;
  readonly pid: number | undefined;
  readonly uptimeMs: number | undefined;
  readonly actors: number;
  /** When the next automatic restart is due (epoch ms), while one is scheduled. */
  readonly nextAttemptAt: number | undefined;
  readonly callsInFlight: number;
  /** The last line the server wrote to stderr (stdio servers). */
  readonly lastStderrLine: string | undefined;
  /** Whether the server runs confined to its sandbox by the OS, and if not, why. */
  readonly confinement: ConfinementStatus;
}

export interface RuntimeStatus {
  readonly servers: readonly ServerStatus[];
  readonly actors: readonly { readonly actor: string; readonly tenant: string; readonly id: string }[];
}

export interface Runtime extends AsyncDisposable {
  readonly config: AgentsConfig;
  /** Server states, restarts, calls started and ended (the audit trail), violations and denials. */
  readonly events$: Observable<RuntimeEvent>;
  /** Knows every secret of the configuration: pass anything you log or show through it. */
  readonly redactor: Redactor;
  /**
   * The built-in inspector server, when created with `inspect: true | { port }`: its page (`url`),
   * its viewers' WebSocket (`wsUrl`, read-only), and for other processes' XState inspection clients
   * `producerUrl` (with this run's `token`; keep it private).
   */
  readonly inspector:
    | { readonly url: string; readonly wsUrl: string; readonly producerUrl: string; readonly token: string; readonly port: number }
    | undefined;
  /** The runtime's XState actor: the root of the supervision tree. */
  readonly actor: Actor<typeof runtimeMachine>;
  activate(actor: string | ActorSpec, options: ActivateOptions): Promise<ActorHandle>;
  /**
   * A sandbox of `projectDir` owned by the runtime (disposed at shutdown). With `id`, a sandbox of
   * that id a crashed host left is reopened, checkpoints included (an interrupted rollback is
   * finished when an actor first works in it).
   */
  createSandbox(projectDir: string, options?: { includeIgnored?: boolean; id?: string }): Promise<Sandbox>;
  /** Sandboxes crashed hosts left behind (in the OS temp dir), to reopen with `createSandbox(dir, { id })`. */
  sandboxes(): Promise<LeftSandbox[]>;
  status(): RuntimeStatus;
  /** Deactivates every actor and stops every server; afterwards no process the runtime spawned is alive. */
  shutdown(): Promise<void>;
}

/** An actor given inline rather than by name. */
export interface ActorSpec {
  readonly name: string;
  readonly skills: readonly string[];
  readonly permissions?: Partial<ActorConfig['permissions']>;
  readonly tenantKey?: string;
}

/**
 * @example
 * await using runtime = await createRuntime({ file: 'agents.yaml', approve: async ({ tool }) => confirm(tool.name) });
 * const sandbox = await runtime.createSandbox(process.cwd());
 * const triager = await runtime.activate('triager', { tenant: 'acme', sandbox });
 * const outcome = await triager.call('files/write_file', { path: 'NOTES.md', content: 'hi' });
 * await sandbox.applyToHost();
 */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const domainServers = new Map((options.domainServers ?? []).map((server) => [server.name, server] as const));
  const redactor = new Redactor({ redactArgument: options.redactArgument });
  // Every variable a `${VAR}` reference reads is secret from then on (in args, url and cwd too).
  // An unset one makes only the servers that use it unusable (an error when an actor uses them).
  const configOptions = {
    extraServers: [...domainServers.keys()],
    env: redactor.recordingEnv(options.env ?? process.env),
    unsetVariables: 'per-server' as const,
  };
  let config: AgentsConfig;
  try {
    config = options.file ? await loadAgentsFile(options.file, configOptions) : agentsConfigFromObject(options.config ?? {}, configOptions);
  } catch (error) {
    throw redactor.redactError(error);
  }
  for (const server of Object.values(config.servers)) redactor.addServerConfig(server);
  for (const name of Object.keys(options.serverActors ?? {})) {
    if (config.servers[name] === undefined) {
      throw new McpActorsError(
        ErrorCode.INVALID_ARGUMENT,
        `serverActors names "${name}", which is not a server of the configuration; declare it under servers (known: ${Object.keys(config.servers).join(', ') || 'none'})`,
        { details: { server: name } },
      );
    }
  }
  const serverOptions = inspectServerOptions(options.inspect);
  const inspector = serverOptions ? await openInspector(serverOptions, redactor) : undefined;
  return new RuntimeImpl(config, options, domainServers, redactor, inspector);
}

interface SandboxEntry {
  /** Opened once, even when two activations ask for it at the same time. */
  readonly workspace: Promise<SandboxWorkspace>;
  readonly id: string;
  refs: number;
}

class RuntimeImpl implements Runtime {
  readonly events$: Observable<RuntimeEvent>;
  readonly actor: Actor<typeof runtimeMachine>;
  private readonly events = new Subject<RuntimeEvent>();
  private readonly pool: ServerPool;
  private readonly handles = new Set<ActorHandle>();
  /** By actor id: the runtime's machine runs each actor's activation through it. */
  private readonly handlesById = new Map<string, ActorHandle>();
  private readonly workspaces = new Map<string, SandboxEntry>();
  private readonly ownedSandboxes: Sandbox[] = [];
  private readonly activations = new Set<Promise<unknown>>();
  private actorSequence = 0;
  private readonly inspected: boolean;
  private shuttingDown: Promise<void> | undefined;
  private readonly telemetry: RuntimeTelemetry | undefined;

  constructor(
    readonly config: AgentsConfig,
    private readonly options: RuntimeOptions,
    private readonly domainServers: ReadonlyMap<string, DomainServer>,
    /** Every secret of this runtime's configuration; everything that leaves goes through it. */
    readonly redactor: Redactor,
    /** The built-in inspector server, when `inspect: true | { port }`. */
    readonly inspector: InspectorServer | undefined,
  ) {
    const observer = inspector ? inspector.inspect : isInspectionObserver(options.inspect) ? options.inspect : undefined;
    this.inspected = observer !== undefined;
    this.events$ = this.events.asObservable();
    // OpenTelemetry, when the host has installed @opentelemetry/api: read from the events.
    this.telemetry = traceRuntime(this.events$);
    // The actor machine, provided once: its work is done by the handle of the actor it runs for.
    // The work asks the machine for servers and is told by its answers (events), whenever they come.
    const agentActor = actorMachine.provide({
      actors: {
        activateActor: fromPromise(async ({ input }) => this.handleOf(input.id).activateServers()),
        deactivateActor: fromPromise(async ({ input }) => this.handleOf(input.id).releaseServers()),
      },
    });
    this.actor = createActor(runtimeMachine.provide({ actors: { agentActor, shutDown: fromPromise(() => this.stopEverything()) } }), {
      id: RUNTIME_LABEL,
      systemId: 'runtime',
      ...(observer ? { inspect: observer } : {}),
    });
    this.actor.start();
    this.pool = new ServerPool(this.actor, redactor, {
      auth: options.auth,
      onElicit: options.onElicit,
      onSample: options.onSample,
      serverActors: options.serverActors,
    });
    this.pool.onCreated((entry) => this.watchServer(entry));
  }

  async activate(actor: string | ActorSpec, options: ActivateOptions): Promise<ActorHandle> {
    try {
      return await this.activateActor(actor, options);
    } catch (error) {
      throw this.redactor.redactError(error);
    }
  }

  private emit(event: RuntimeEvent): void {
    // Redacting is a walk of the event: not worth doing for nobody (two events a call).
    if (!this.events.observed) return;
    this.events.next(this.redactor.redact(event));
  }

  private async activateActor(actor: string | ActorSpec, options: ActivateOptions): Promise<ActorHandle> {
    this.assertRunning('activate()');
    const spec = this.resolveSpec(actor);
    // A JavaScript caller can leave the options out.
    const given = options as ActivateOptions | undefined;
    if (typeof given?.tenant !== 'string' || given.tenant.trim() === '') {
      throw new McpActorsError(
        ErrorCode.INVALID_ARGUMENT,
        `activate("${spec.name}") needs { tenant }: the id of the tenant the actor works for`,
      );
    }
    const sandboxEntry = options.sandbox ? this.openWorkspace(options.sandbox) : undefined;
    let workspace: SandboxWorkspace | undefined;
    try {
      workspace = await sandboxEntry?.workspace;
    } catch (error) {
      if (options.sandbox) await this.closeWorkspace(options.sandbox);
      throw error;
    }
    const id = `${spec.name}:${options.tenant}:${++this.actorSequence}`;
    const handle: ActorHandle = new ActorHandle({
      config: this.config,
      spec,
      tenant: options.tenant,
      id,
      pool: this.pool,
      domainServers: this.domainServers,
      customTools: this.options.tools ?? [],
      workspace,
      sandbox: options.sandbox,
      sandboxId: sandboxEntry?.id,
      runtime: this.actor,
      label: this.childLabel(spec.name, options.tenant),
      inspected: this.inspected,
      approve: this.options.approve,
      emit: (event) => this.emit(event),
      redactor: this.redactor,
      telemetry: this.telemetry,
      defaultTimeoutMs: this.options.callTimeoutMs ?? 60_000,
      onDeactivated: async () => {
        this.handles.delete(handle);
        this.handlesById.delete(id);
        if (options.sandbox) await this.closeWorkspace(options.sandbox);
      },
    });
    this.handles.add(handle);
    this.handlesById.set(id, handle);
    const activation = handle.activate();
    this.activations.add(activation);
    try {
      await activation;
    } catch (error) {
      await handle.deactivate();
      throw error;
    } finally {
      this.activations.delete(activation);
    }
    if (this.shuttingDown) {
      await handle.deactivate();
      throw new McpActorsError(
        ErrorCode.RUNTIME_SHUT_DOWN,
        `actor "${spec.name}" was activated while the runtime shut down; create a new runtime`,
      );
    }
    return handle;
  }

  async createSandbox(projectDir: string, options: { includeIgnored?: boolean; id?: string } = {}): Promise<Sandbox> {
    this.assertRunning('createSandbox()');
    const sandbox = await Sandbox.create({
      projectDir,
      ...(options.includeIgnored ? { includeIgnored: true } : {}),
      ...(options.id !== undefined ? { id: options.id } : {}),
    });
    this.ownedSandboxes.push(sandbox);
    return sandbox;
  }

  sandboxes(): Promise<LeftSandbox[]> {
    return Sandbox.leftBehind();
  }

  status(): RuntimeStatus {
    return this.redactor.redact({
      servers: this.pool.list().map((entry) => {
        const status = entry.adapter.client.status();
        return {
          server: entry.server,
          tenant: entry.tenant,
          sandbox: entry.sandboxRoot,
          state: status.state,
          restarts: status.restarts,
          lastError: status.lastError?.message,
          pid: status.pid,
          uptimeMs: status.uptimeMs,
          actors: this.pool.holders(entry),
          nextAttemptAt: status.nextAttemptAt,
          callsInFlight: status.callsInFlight,
          lastStderrLine: status.diagnostics?.stderrTail.at(-1),
          confinement: confinementStatus(entry.adapter.client.config),
        };
      }),
      actors: [...this.handles].map((handle) => ({ actor: handle.name, tenant: handle.tenant, id: handle.id })),
    });
  }

  shutdown(): Promise<void> {
    this.shuttingDown ??= (async () => {
      this.actor.send({ type: 'runtime.shutdown' });
      await waitFor(this.actor, (snapshot) => snapshot.status === 'done');
      // Last, so viewers see the tree wind down; then no socket keeps the host alive.
      await this.inspector?.close();
    })();
    return this.shuttingDown;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.shutdown();
  }

  private async stopEverything(): Promise<void> {
    const failures: unknown[] = [];
    const attempt = async (work: () => Promise<unknown>): Promise<void> => {
      try {
        await work();
      } catch (error) {
        failures.push(error);
      }
    };
    // Activations under way finish first (their actors are then deactivated like the others). A
    // shutdown overtakes them: a server still starting is stopped, so the activation waiting for it
    // ends now (SERVER_STOPPED) rather than after the server's whole restart budget.
    for (const entry of this.pool.list()) {
      if (entry.adapter.client.state === 'STARTING') void entry.adapter.client.stop().catch(() => undefined);
    }
    await Promise.allSettled([...this.activations]);
    for (const handle of this.handles) handle.cancelCalls('the runtime is shutting down');
    for (const handle of [...this.handles].reverse()) await attempt(() => handle.deactivate());
    await attempt(() => this.pool.shutdown());
    for (const entry of this.workspaces.values()) await attempt(async () => (await entry.workspace).dispose());
    this.workspaces.clear();
    for (const sandbox of this.ownedSandboxes.splice(0).reverse()) await attempt(() => sandbox.dispose());
    // No group left to guard (unless another runtime in this host has some): the reaper goes too.
    await attempt(() => retireReaper());
    for (const error of failures) {
      this.emit({
        type: 'runtime.error',
        message: `shutdown: ${messageOf(error)}`,
        code: isMcpActorsError(error) ? error.code : undefined,
      });
    }
    this.events.complete();
  }

  private handleOf(id: string): ActorHandle {
    const handle = this.handlesById.get(id);
    if (!handle)
      throw new McpActorsError(ErrorCode.ACTIVATION_FAILED, `no actor of id "${id}" is active in this runtime; activate it again`);
    return handle;
  }

  /** The actor's label (`actor:triager:acme`); a second one of the same name and tenant at once gets ` (2)`, … */
  private childLabel(actor: string, tenant: string): string {
    const label = actorLabel(actor, tenant);
    const children = this.actor.getSnapshot().children as Readonly<Record<string, unknown>>;
    if (!children[label]) return label;
    for (let n = 2; ; n++) if (!children[`${label} (${n})`]) return `${label} (${n})`;
  }

  private resolveSpec(actor: string | ActorSpec): ActorConfig {
    if (typeof actor === 'string') {
      const spec = this.config.actors[actor];
      if (spec) return spec;
      const known = Object.keys(this.config.actors);
      const near = closest(actor, known);
      throw new McpActorsError(
        ErrorCode.ACTIVATION_FAILED,
        `no actor named "${actor}" is configured; ${near !== undefined ? `did you mean "${near}"?` : `configured actors: ${known.map((n) => `"${n}"`).join(', ') || 'none'}`}`,
        { details: { actor, known } },
      );
    }
    for (const skill of actor.skills) {
      if (!this.config.skills[skill]) {
        throw new McpActorsError(
          ErrorCode.ACTIVATION_FAILED,
          `actor "${actor.name}" names skill "${skill}", which is not configured; configured skills: ${Object.keys(this.config.skills).join(', ') || 'none'}`,
          { details: { actor: actor.name, skill } },
        );
      }
    }
    return {
      name: actor.name,
      skills: [...actor.skills],
      permissions: { execute: actor.permissions?.execute ?? 'ask', restricted: [...(actor.permissions?.restricted ?? [])] },
      tenantKey: actor.tenantKey ?? DEFAULT_TENANT_KEY,
    };
  }

  private openWorkspace(sandbox: Sandbox): SandboxEntry {
    const existing = this.workspaces.get(sandbox.root);
    if (existing) {
      existing.refs += 1;
      return existing;
    }
    const entry: SandboxEntry = {
      workspace: SandboxWorkspace.open(withConfinedRollbacks(sandbox)),
      id: createHash('sha256').update(sandbox.root).digest('hex').slice(0, 8),
      refs: 1,
    };
    this.workspaces.set(sandbox.root, entry);
    return entry;
  }

  private async closeWorkspace(sandbox: Sandbox): Promise<void> {
    const entry = this.workspaces.get(sandbox.root);
    if (!entry) return;
    entry.refs -= 1;
    if (entry.refs > 0) return;
    this.workspaces.delete(sandbox.root);
    await (await entry.workspace.catch(() => undefined))?.dispose();
  }

  private watchServer(entry: PoolEntry): void {
    const { client } = entry.adapter;
    client.state$.subscribe((state) => {
      this.emit({
        type: 'server.state',
        server: entry.server,
        tenant: entry.tenant,
        sandbox: entry.sandboxRoot,
        state,
        pid: client.status().pid,
      });
    });
    // Restarts happen inside STARTING (the wait between them is part of it), so they are read from
    // the machine's snapshots, not from the public state.
    let restarts = 0;
    client.actor.subscribe((snapshot) => {
      const count = snapshot.context.restartCount;
      if (count < restarts) restarts = count; // start() or reconnect() began afresh
      if (count > restarts) {
        restarts = count;
        this.emit({
          type: 'server.restarted',
          server: entry.server,
          tenant: entry.tenant,
          restarts,
          error: client.status().lastError?.message,
        });
      }
    });
  }

  private assertRunning(what: string): void {
    if (this.shuttingDown) {
      throw new McpActorsError(ErrorCode.RUNTIME_SHUT_DOWN, `${what} after shutdown(); create a new runtime`);
    }
  }
}

/**
 * A sandbox's roots, with its rollbacks confined wherever bubblewrap works here: a server that
 * swaps a directory for a symlink while a rollback runs cannot make it delete outside the sandbox.
 */
function withConfinedRollbacks(sandbox: Sandbox): WorkspaceRoots {
  // From here on the sandbox tells what committed calls changed from what was written between calls.
  sandbox.trackCalls();
  const probe = probeConfinement(process.env.PATH);
  const roots = {
    root: sandbox.root,
    logicalRoot: sandbox.logicalRoot,
    checkpointsDir: sandbox.checkpointsDir,
    // What git knows of the checkout: the store's first snapshot reads only what differs from it.
    checkpointSeed: sandbox.checkpointSeed,
    onCommitted: sandbox.noteCommitted.bind(sandbox),
  };
  return probe.available ? { ...roots, confineRollback: { bwrap: probe.bwrap } } : roots;
}
