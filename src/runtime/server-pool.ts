/**
 * Server actors shared by reference count. Actors of the same tenant and the same sandbox share one
 * server actor; it stops when the last of them lets go (or earlier by idle stop). A different
 * tenant or sandbox always gets its own (ADR-004-F: no process reused across tenants).
 */
import type { AnyActorRef, InspectionEvent, Observer } from 'xstate';
import { McpToolAdapter } from '../adapter/mcp-tool-adapter.js';
import { McpClient } from '../client/mcp-client.js';
import type { CapabilityOverrides } from '../registry/capabilities.js';
import type { ResolvedServerConfig } from '../config/server-config.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { Redactor } from '../redaction/redactor.js';
import { serverLabel } from '../inspector/actor-labels.js';
import { bindPlaceholders } from './placeholders.js';
import { withSandbox } from '../actors/confinement/confinement-plan.js';
import { forTenant, type RuntimeElicitHandler, type RuntimeSampleHandler } from '../actors/server-requests.js';
import type { ServerAuth } from '../auth/server-auth.js';

/** What the host gave for remote servers and for the questions servers ask back. */
export interface RemoteOptions {
  readonly auth?: ServerAuth | undefined;
  readonly onElicit?: RuntimeElicitHandler | undefined;
  readonly onSample?: RuntimeSampleHandler | undefined;
}

export interface PoolEntry {
  readonly key: string;
  readonly server: string;
  readonly tenant: string;
  readonly sandboxRoot: string | undefined;
  readonly adapter: McpToolAdapter;
  refs: number;
}

export interface AcquireOptions {
  readonly tenant: string;
  readonly sandboxRoot: string | undefined;
  /** The project the sandbox stands for (a confined server cannot read its `.env` files). */
  readonly projectRoot?: string | undefined;
  readonly sandboxId: string | undefined;
  /** The runtime's actor: it owns every server actor (they are shared), and stops each on `child.stop`. */
  readonly parent: AnyActorRef | undefined;
  readonly inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void) | undefined;
  readonly overrides: Readonly<Record<string, CapabilityOverrides>>;
}

export class ServerPool {
  private readonly entries = new Map<string, PoolEntry>();
  private readonly created: ((entry: PoolEntry) => void)[] = [];
  private closed = false;

  constructor(
    private readonly redactor: Redactor,
    private readonly remote: RemoteOptions = {},
  ) {}

  /** Called for every new server actor (the runtime forwards its states as events). */
  onCreated(listener: (entry: PoolEntry) => void): void {
    this.created.push(listener);
  }

  acquire(config: ResolvedServerConfig, options: AcquireOptions): PoolEntry {
    if (this.closed) {
      throw new McpActorsError(ErrorCode.RUNTIME_SHUT_DOWN, `server "${config.name}" was asked for after the runtime shut down; create a new runtime`);
    }
    const key = `${config.name}\u0000${options.tenant}\u0000${options.sandboxRoot ?? ''}`;
    const existing = this.entries.get(key);
    if (existing) {
      existing.refs += 1;
      return existing;
    }
    const placed = bindPlaceholders(config, { TENANT: options.tenant, SANDBOX_ROOT: options.sandboxRoot });
    const confine = placed.transport === 'stdio' ? withSandbox(placed.confine, options.sandboxRoot, options.projectRoot) : placed.confine;
    const bound = confine === undefined ? placed : { ...placed, confine };
    const systemId = serverLabel(config.name, options.tenant, options.sandboxId);
    const provider = bound.transport !== 'stdio' && bound.url ? this.remote.auth?.({ name: bound.name, url: bound.url, tenant: options.tenant }) : undefined;
    const client = new McpClient(bound, {
      systemId,
      redactor: this.redactor,
      ...(provider ? { auth: provider } : {}),
      ...forTenant(options.tenant, this.remote),
      ...(options.parent ? { parent: options.parent } : {}),
      ...(options.inspect && !options.parent ? { inspect: options.inspect } : {}),
    });
    const entry: PoolEntry = {
      key,
      server: config.name,
      tenant: options.tenant,
      sandboxRoot: options.sandboxRoot,
      adapter: new McpToolAdapter(client, { overrides: options.overrides }),
      refs: 1,
    };
    this.entries.set(key, entry);
    for (const listener of this.created) listener(entry);
    return entry;
  }

  /** Lets go of one reference; the last one stops the server and waits until its process is gone. */
  async release(entry: PoolEntry): Promise<void> {
    entry.refs -= 1;
    if (entry.refs > 0) return;
    this.entries.delete(entry.key);
    await entry.adapter.dispose();
  }

  list(): PoolEntry[] {
    return [...this.entries.values()];
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    const entries = [...this.entries.values()].reverse();
    this.entries.clear();
    await Promise.all(entries.map((entry) => entry.adapter.dispose()));
  }
}
