/**
 * `ToolRegistry`: every tool an agent may use, by full name `<namespace>/<tool>`, with the
 * handler that runs it. Changes are an rxjs Observable, so skills and UIs follow the registry.
 */
import { Subject, type Observable } from 'rxjs';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { ToolDescriptor, ToolHandler, ToolSource } from './tool-descriptor.js';

export type ToolRegistryChange =
  | { readonly type: 'added'; readonly name: string; readonly descriptor: ToolDescriptor }
  | { readonly type: 'updated'; readonly name: string; readonly descriptor: ToolDescriptor; readonly previous: ToolDescriptor }
  | { readonly type: 'removed'; readonly name: string; readonly previous: ToolDescriptor };

interface Entry {
  readonly descriptor: ToolDescriptor;
  readonly handler: ToolHandler | undefined;
}

/**
 * @example
 * const registry = new ToolRegistry();
 * await adapter.registerTools(registry, { namespace: 'github' });
 * registry.list({ source: 'mcp' }).map((tool) => tool.name); // ['github/create_issue', ...]
 */
export class ToolRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly changeSubject = new Subject<ToolRegistryChange>();
  /** Every addition, update and removal, as it happens. */
  readonly changes$: Observable<ToolRegistryChange> = this.changeSubject.asObservable();

  /** Adds or replaces one tool. */
  register(descriptor: ToolDescriptor, handler?: ToolHandler): void {
    const previous = this.entries.get(descriptor.name);
    this.entries.set(descriptor.name, { descriptor, handler });
    if (!previous) this.changeSubject.next({ type: 'added', name: descriptor.name, descriptor });
    else if (JSON.stringify(previous.descriptor) !== JSON.stringify(descriptor) || previous.handler !== handler) {
      this.changeSubject.next({ type: 'updated', name: descriptor.name, descriptor, previous: previous.descriptor });
    }
  }

  /**
   * Makes the tools of one namespace exactly `tools`: new ones are added, changed ones updated,
   * and the namespace's tools not in the list removed (a tool list change on the server).
   */
  replaceNamespace(namespace: string, tools: readonly { descriptor: ToolDescriptor; handler?: ToolHandler }[]): void {
    const keep = new Set(tools.map((tool) => tool.descriptor.name));
    for (const tool of tools) {
      if (tool.descriptor.namespace !== namespace) {
        throw new McpActorsError(
          ErrorCode.INVALID_ARGUMENT,
          `replaceNamespace("${namespace}") was given "${tool.descriptor.name}" from namespace "${tool.descriptor.namespace}"`,
        );
      }
    }
    for (const [name, entry] of [...this.entries]) {
      if (entry.descriptor.namespace === namespace && !keep.has(name)) this.unregister(name);
    }
    for (const tool of tools) this.register(tool.descriptor, tool.handler);
  }

  unregister(name: string): boolean {
    const entry = this.entries.get(name);
    if (!entry) return false;
    this.entries.delete(name);
    this.changeSubject.next({ type: 'removed', name, previous: entry.descriptor });
    return true;
  }

  get(name: string): ToolDescriptor | undefined {
    return this.entries.get(name)?.descriptor;
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The handler that runs `name`; NOT_FOUND (with close names) when there is none. */
  handlerOf(name: string): ToolHandler {
    const handler = this.entries.get(name)?.handler;
    if (handler) return handler;
    throw new McpActorsError(
      ErrorCode.NOT_FOUND,
      this.entries.has(name)
        ? `tool "${name}" is registered without a handler, so it cannot be run`
        : `no tool named "${name}" is registered; tools are named "<namespace>/<tool>"`,
      { details: { name } },
    );
  }

  /** Tools, optionally only those of one namespace and/or source, in name order. */
  list(filter: { namespace?: string; source?: ToolSource } = {}): ToolDescriptor[] {
    return [...this.entries.values()]
      .map((entry) => entry.descriptor)
      .filter(
        (d) =>
          (filter.namespace === undefined || d.namespace === filter.namespace) &&
          (filter.source === undefined || d.source === filter.source),
      )
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  namespaces(): string[] {
    return [...new Set([...this.entries.values()].map((e) => e.descriptor.namespace))].sort();
  }

  get size(): number {
    return this.entries.size;
  }
}
