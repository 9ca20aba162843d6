/**
 * Server actors shared by reference. Actors of the same tenant and the same sandbox share one
 * server actor; it stops when the last of them lets go (or earlier by idle stop). A different
 * tenant or sandbox always gets its own (ADR-004-F: no process reused across tenants).
 *
 * The server supervisor of the tenant and sandbox decides (see machines/server-supervisor.ts): it
 * spawns each server actor as its child and keeps who holds it. The pool asks through the agent
 * actor that takes or lets go of the reference (`server.acquire` / `server.release`) and is told
 * by the answer the actor emits (`server.acquired` with the server actor, `server.released` with
 * `last` when nobody holds it any more); it never reads a machine's snapshot to learn what a send
 * did. The pool keeps the clients (the code that talks to each server) and waits for the stops.
 */
import { homedir } from 'node:os';
import type { Actor, ActorRefFrom } from 'xstate';
import { McpToolAdapter } from '../adapter/mcp-tool-adapter.js';
import { McpClient, type ServerActorHost } from '../client/mcp-client.js';
import type { runtimeMachine, SupervisorAddress } from './runtime-machine.js';
import type { actorMachine, ActorEvent } from './actor-machine.js';
import { ChildSpawn } from './child-spawn.js';
import { supervisorLabel, type SupervisorReply } from './server-supervisor.js';
import type { CapabilityOverrides } from '../registry/capabilities.js';
import type { ResolvedServerConfig } from '../config/server-config.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { Redactor } from '../redaction/redactor.js';
import { serverLabel } from '../inspector/actor-labels.js';
import { bindPlaceholders } from './placeholders.js';
import { extraDeniedPaths, withSandbox } from '../process/confinement/confinement-plan.js';
import { forTenant, type RuntimeElicitHandler, type RuntimeSampleHandler } from '../server/server-requests.js';
import type { ServerAuth } from '../auth/server-auth.js';
import type { ServerActors } from '../server/server-actors.js';
import type { Sandbox } from '../sandbox/sandbox.js';

/** What the host gave for remote servers and for the questions servers ask back. */
export interface RemoteOptions {
  readonly auth?: ServerAuth | undefined;
  readonly onElicit?: RuntimeElicitHandler | undefined;
  readonly onSample?: RuntimeSampleHandler | undefined;
  /** Per server name, the actors its supervision runs on instead of the defaults (see `RuntimeOptions.serverActors`). */
  readonly serverActors?: Readonly<Record<string, Partial<ServerActors>>> | undefined;
}

export interface PoolEntry {
  readonly key: string;
  readonly server: string;
  readonly tenant: string;
  readonly sandboxRoot: string | undefined;
  /** The id of the server supervisor that owns its actor (one per tenant and sandbox). */
  readonly supervisor: string;
  readonly adapter: McpToolAdapter;
}

export interface AcquireOptions {
  readonly tenant: string;
  readonly sandboxRoot: string | undefined;
  /** The project the sandbox stands for (a confined server cannot read its `.env` files). */
  readonly projectRoot?: string | undefined;
  readonly sandboxId: string | undefined;
  /** The sandbox itself: told the extra paths a server confined in it may not read (`Sandbox.denyReads`). */
  readonly sandbox?: Pick<Sandbox, 'denyReads'> | undefined;
  /** The actor machine that takes the reference: it asks the supervisor (through the runtime's machine), as the holder, and is answered. */
  readonly actor: ActorRefFrom<typeof actorMachine>;
  readonly overrides: Readonly<Record<string, CapabilityOverrides>>;
}

export class ServerPool {
  private readonly entries = new Map<string, PoolEntry>();
  /** Servers whose last holder let go, while they stop: the next acquire of their key waits for it. */
  private readonly retiring = new Map<string, Promise<void>>();
  private readonly created: ((entry: PoolEntry) => void)[] = [];
  /** How many actors hold each server, as the supervisor's last answer about it said. */
  private readonly holderCounts = new Map<string, number>();
  private closed = false;

  constructor(
    /** The runtime's actor: its server supervisors own the server actors. */
    private readonly runtime: Actor<typeof runtimeMachine>,
    private readonly redactor: Redactor,
    private readonly remote: RemoteOptions = {},
  ) {}

  /** Called for every new server actor (the runtime forwards its states as events). */
  onCreated(listener: (entry: PoolEntry) => void): void {
    this.created.push(listener);
  }

  /** Takes a reference to the server of `config` for `options.actor`, spawning its actor if nobody holds one. */
  async acquire(config: ResolvedServerConfig, options: AcquireOptions): Promise<PoolEntry> {
    const key = `${config.name}\u0000${options.tenant}\u0000${options.sandboxRoot ?? ''}`;
    const supervisor: SupervisorAddress = {
      id: supervisorLabel(options.tenant, options.sandboxId),
      input: { tenant: options.tenant, sandboxId: options.sandboxId },
    };
    for (;;) {
      // One server actor of a key at a time (its id and systemId are its key's): a new one waits
      // until the one stopping is gone.
      await this.retiring.get(key);
      if (this.closed) {
        throw new McpActorsError(
          ErrorCode.RUNTIME_SHUT_DOWN,
          `server "${config.name}" was asked for after the runtime shut down; create a new runtime`,
        );
      }
      const existing = this.entries.get(key);
      if (!existing) break;
      const reply = await ask(options.actor, { type: 'server.acquire', key, supervisor }).answer;
      if (reply === undefined) throw shutDown(config.name);
      if (reply.type === 'server.acquired') {
        this.holderCounts.set(key, reply.holders);
        return existing;
      }
      // Refused: its last holder let go meanwhile, and it stops; acquire it afresh once it has.
      if (this.entries.get(key) === existing) await this.retire(existing).catch(() => undefined);
    }
    const placed = bindPlaceholders(config, { TENANT: options.tenant, SANDBOX_ROOT: options.sandboxRoot });
    const confine = placed.transport === 'stdio' ? withSandbox(placed.confine, options.sandboxRoot, options.projectRoot) : placed.confine;
    const bound = confine === undefined ? placed : { ...placed, confine };
    // The sandbox's own git (diff, applyToHost) must not read what this server may not.
    // `~` in `deny` is the host user's home and, when the server is given another HOME, that one too (as the plan hides both).
    const homes = new Set([homedir(), ...(bound.env.HOME !== undefined ? [bound.env.HOME] : [])]);
    options.sandbox?.denyReads([...homes].flatMap((home) => extraDeniedPaths(bound.confine, home)));
    const systemId = serverLabel(config.name, options.tenant, options.sandboxId);
    const provider =
      bound.transport !== 'stdio' && bound.url
        ? this.remote.auth?.({ name: bound.name, url: bound.url, tenant: options.tenant })
        : undefined;
    const client = new McpClient(bound, {
      systemId,
      redactor: this.redactor,
      ...(provider ? { auth: provider } : {}),
      ...forTenant(options.tenant, this.remote),
      ...(this.remote.serverActors?.[config.name] ? { actors: this.remote.serverActors[config.name] } : {}),
      host: this.hostFor(key, supervisor, options.actor),
    });
    const entry: PoolEntry = {
      key,
      server: config.name,
      tenant: options.tenant,
      sandboxRoot: options.sandboxRoot,
      supervisor: supervisor.id,
      adapter: new McpToolAdapter(client, { overrides: options.overrides }),
    };
    this.entries.set(key, entry);
    for (const listener of this.created) listener(entry);
    return entry;
  }

  /** Lets go of `actor`'s reference; after the last one the server stops, and this waits until its process is gone. */
  async release(entry: PoolEntry, actor: ActorRefFrom<typeof actorMachine>): Promise<void> {
    const reply = await ask(actor, { type: 'server.release', key: entry.key, supervisor: entry.supervisor }).answer;
    if (reply?.type !== 'server.released') return;
    if (this.entries.get(entry.key) === entry) this.holderCounts.set(entry.key, reply.holders);
    if (!reply.last) return;
    // The supervisor forgot it (nobody holds it): stop it, or wait for the stop another asker began.
    await (this.entries.get(entry.key) === entry ? this.retire(entry) : this.retiring.get(entry.key));
  }

  /** How many actors hold the server, as its supervisor last answered. */
  holders(entry: PoolEntry): number {
    return this.entries.get(entry.key) === entry ? (this.holderCounts.get(entry.key) ?? 0) : 0;
  }

  list(): PoolEntry[] {
    return [...this.entries.values()];
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    const entries = [...this.entries.values()].reverse();
    await Promise.all([...entries.map((entry) => this.retire(entry)), ...this.retiring.values()]);
  }

  /** Stops the server and its actor (the client stops the server, then asks the runtime to stop the child). */
  private retire(entry: PoolEntry): Promise<void> {
    this.entries.delete(entry.key);
    this.holderCounts.delete(entry.key);
    const stopped = entry.adapter.dispose().finally(() => {
      if (this.retiring.get(entry.key) === done) this.retiring.delete(entry.key);
    });
    const done = stopped.catch(() => undefined);
    this.retiring.set(entry.key, done);
    return stopped;
  }

  /** Where a client's server actor lives: a child of the supervisor of its tenant and sandbox, acquired by `actor`. */
  private hostFor(key: string, supervisor: SupervisorAddress, actor: ActorRefFrom<typeof actorMachine>): ServerActorHost {
    const runtime = this.runtime;
    const counts = this.holderCounts;
    return {
      spawn(logic, { id, systemId, input }) {
        // The client's constructor needs its actor now. The pool asks from a turn of its own (after
        // an await), never from inside a transition, so XState has delivered the supervisor's answer
        // by the time send returns; the ref is taken from that answer.
        const reply = ask(actor, { type: 'server.acquire', key, supervisor, spawn: new ChildSpawn(logic, id, systemId, input) }).given();
        if (reply?.type !== 'server.acquired') throw shutDown(id);
        counts.set(key, reply.holders);
        return reply.ref as ReturnType<ServerActorHost['spawn']>;
      },
      retire(server) {
        runtime.send({ type: 'server.retire', supervisor: supervisor.id, actor: server });
      },
    };
  }
}

/**
 * Sends a request to the agent actor and is told by the answer it emits for the request's key
 * (`server.acquired`, `server.refused`, `server.released`); `undefined` when the actor has stopped
 * (the runtime shut down), when no answer can come.
 */
function ask(
  actor: ActorRefFrom<typeof actorMachine>,
  request: Extract<ActorEvent, { type: 'server.acquire' | 'server.release' }>,
): { readonly answer: Promise<SupervisorReply | undefined>; readonly given: () => SupervisorReply | undefined } {
  if (actor.getSnapshot().status !== 'active') return { answer: Promise.resolve(undefined), given: () => undefined };
  let given: SupervisorReply | undefined;
  let settled = false;
  let tell: (reply: SupervisorReply | undefined) => void = () => undefined;
  const answer = new Promise<SupervisorReply | undefined>((resolve) => (tell = resolve));
  const settle = (reply: SupervisorReply | undefined): void => {
    if (settled) return;
    settled = true;
    given = reply;
    for (const subscription of subscriptions) subscription.unsubscribe();
    tell(reply);
  };
  const listen = (reply: SupervisorReply): void => {
    if (reply.key === request.key) settle(reply);
  };
  // An actor stopped before the answer came (its runtime's actor was stopped) will not answer.
  const subscriptions = [
    actor.on('server.acquired', listen),
    actor.on('server.refused', listen),
    actor.on('server.released', listen),
    actor.subscribe({ complete: () => settle(undefined), error: () => settle(undefined) }),
  ];
  actor.send(request);
  return { answer, given: () => given };
}

function shutDown(server: string): McpActorsError {
  return new McpActorsError(
    ErrorCode.RUNTIME_SHUT_DOWN,
    `server "${server}" could not be acquired: the runtime or the actor asking for it has stopped; create a new runtime or activate the actor again`,
  );
}
