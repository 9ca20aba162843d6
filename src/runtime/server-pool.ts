/**
 * Server actors shared by reference. Actors of the same tenant and the same sandbox share one
 * server actor; it stops when the last of them lets go (or earlier by idle stop). A different
 * tenant or sandbox always gets its own (ADR-004-F: no process reused across tenants).
 *
 * The runtime's machine decides: it spawns each server actor as its child, keeps who holds it, and
 * says when the last holder let go (`server.acquire` / `server.release`, see runtime-machine.ts).
 * The pool keeps the clients (the code that talks to each server) and waits for the stops.
 */
import { homedir } from 'node:os';
import type { Actor, ActorRefFrom } from 'xstate';
import { McpToolAdapter } from '../adapter/mcp-tool-adapter.js';
import { McpClient, type ServerActorHost } from '../client/mcp-client.js';
import { ChildSpawn, type runtimeMachine } from '../machines/runtime-machine.js';
import type { actorMachine } from '../machines/actor-machine.js';
import type { CapabilityOverrides } from '../registry/capabilities.js';
import type { ResolvedServerConfig } from '../config/server-config.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { Redactor } from '../redaction/redactor.js';
import { serverLabel } from '../inspector/actor-labels.js';
import { bindPlaceholders } from './placeholders.js';
import { extraDeniedPaths, withSandbox } from '../actors/confinement/confinement-plan.js';
import { forTenant, type RuntimeElicitHandler, type RuntimeSampleHandler } from '../actors/server-requests.js';
import type { ServerAuth } from '../auth/server-auth.js';
import type { ServerActors } from '../actors/server-actors.js';
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
  /** The actor machine that takes the reference: it asks the runtime's machine, as the holder. */
  readonly actor: ActorRefFrom<typeof actorMachine>;
  readonly overrides: Readonly<Record<string, CapabilityOverrides>>;
}

export class ServerPool {
  private readonly entries = new Map<string, PoolEntry>();
  /** Servers whose last holder let go, while they stop: the next acquire of their key waits for it. */
  private readonly retiring = new Map<string, Promise<void>>();
  private readonly created: ((entry: PoolEntry) => void)[] = [];
  private closed = false;

  constructor(
    /** The runtime's actor: it owns every server actor, as its child. */
    private readonly runtime: Actor<typeof runtimeMachine>,
    private readonly redactor: Redactor,
    private readonly remote: RemoteOptions = {},
  ) {}

  /** Called for every new server actor (the runtime forwards its states as events). */
  onCreated(listener: (entry: PoolEntry) => void): void {
    this.created.push(listener);
  }

  /** Takes a reference to the server of `config` for `options.holder`, spawning its actor if nobody holds one. */
  async acquire(config: ResolvedServerConfig, options: AcquireOptions): Promise<PoolEntry> {
    const key = `${config.name}\u0000${options.tenant}\u0000${options.sandboxRoot ?? ''}`;
    // One server actor of a key at a time (its id and systemId are its key's): a new one waits
    // until the one stopping is gone.
    await this.retiring.get(key);
    if (this.closed) {
      throw new McpActorsError(ErrorCode.RUNTIME_SHUT_DOWN, `server "${config.name}" was asked for after the runtime shut down; create a new runtime`);
    }
    const existing = this.entries.get(key);
    if (existing) {
      const before = this.holders(existing);
      options.actor.send({ type: 'server.acquire', key });
      if (this.holders(existing) !== before + 1) throw shutDown(config.name);
      return existing;
    }
    const placed = bindPlaceholders(config, { TENANT: options.tenant, SANDBOX_ROOT: options.sandboxRoot });
    const confine = placed.transport === 'stdio' ? withSandbox(placed.confine, options.sandboxRoot, options.projectRoot) : placed.confine;
    const bound = confine === undefined ? placed : { ...placed, confine };
    // The sandbox's own git (diff, applyToHost) must not read what this server may not.
    // `~` in `deny` is the host user's home and, when the server is given another HOME, that one too (as the plan hides both).
    const homes = new Set([homedir(), ...(bound.env.HOME !== undefined ? [bound.env.HOME] : [])]);
    options.sandbox?.denyReads([...homes].flatMap((home) => extraDeniedPaths(bound.confine, home)));
    const systemId = serverLabel(config.name, options.tenant, options.sandboxId);
    const provider = bound.transport !== 'stdio' && bound.url ? this.remote.auth?.({ name: bound.name, url: bound.url, tenant: options.tenant }) : undefined;
    const client = new McpClient(bound, {
      systemId,
      redactor: this.redactor,
      ...(provider ? { auth: provider } : {}),
      ...forTenant(options.tenant, this.remote),
      ...(this.remote.serverActors?.[config.name] ? { actors: this.remote.serverActors[config.name] } : {}),
      host: this.hostFor(key, options.actor),
    });
    const entry: PoolEntry = {
      key,
      server: config.name,
      tenant: options.tenant,
      sandboxRoot: options.sandboxRoot,
      adapter: new McpToolAdapter(client, { overrides: options.overrides }),
    };
    this.entries.set(key, entry);
    for (const listener of this.created) listener(entry);
    return entry;
  }

  /** Lets go of `actor`'s reference; after the last one the server stops, and this waits until its process is gone. */
  async release(entry: PoolEntry, actor: ActorRefFrom<typeof actorMachine>): Promise<void> {
    actor.send({ type: 'server.release', key: entry.key });
    // The machine forgets a server when its last holder lets go (its isLastHolder guard).
    if (this.holders(entry) > 0 || this.entries.get(entry.key) !== entry) return;
    await this.retire(entry);
  }

  /** How many actors hold the server (the runtime's machine keeps count). */
  holders(entry: PoolEntry): number {
    return this.runtime.getSnapshot().context.servers[entry.key]?.holders.length ?? 0;
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
    const stopped = entry.adapter.dispose().finally(() => {
      if (this.retiring.get(entry.key) === done) this.retiring.delete(entry.key);
    });
    const done = stopped.catch(() => undefined);
    this.retiring.set(entry.key, done);
    return stopped;
  }

  /** Where a client's server actor lives: a child of the runtime's machine, acquired by `actor`. */
  private hostFor(key: string, actor: ActorRefFrom<typeof actorMachine>): ServerActorHost {
    const runtime = this.runtime;
    return {
      spawn(logic, { id, systemId, input }) {
        actor.send({ type: 'server.acquire', key, spawn: new ChildSpawn(logic, id, systemId, input) });
        const held = runtime.getSnapshot().context.servers[key];
        if (!held) throw shutDown(id);
        return held.ref as ReturnType<ServerActorHost['spawn']>;
      },
      retire(actor) {
        runtime.send({ type: 'server.retire', actor });
      },
    };
  }
}

function shutDown(server: string): McpActorsError {
  return new McpActorsError(
    ErrorCode.RUNTIME_SHUT_DOWN,
    `server "${server}" could not be acquired: the runtime or the actor asking for it has stopped; create a new runtime or activate the actor again`,
  );
}
