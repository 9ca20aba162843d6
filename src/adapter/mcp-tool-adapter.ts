/**
 * `McpToolAdapter`: MCP tools of one supervised server as registry records and invocations
 * (ADR-029 and the adapter reference). Arguments are validated against the tool's input schema
 * before the call; every tool-level failure comes back as an `McpToolResult` with an `errorCode`,
 * never as a throw.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { McpClient } from '../client/mcp-client.js';
import type { McpServerConfig } from '../config/server-config.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import {
  inferCapabilities,
  type CapabilityOverrides,
  type InferenceInput,
  type InferredCapabilities,
  type ToolAnnotations,
  type ToolCapability,
} from '../registry/capabilities.js';
import { compileSchema, describeViolations, violationsOf, type JsonSchema } from '../registry/json-schema-validators.js';
import { NotJsonError, safeJsonCopy } from '../registry/safe-json.js';
import {
  KEEPS_OWN_DEADLINE,
  VALIDATED_AGAINST,
  type InvokeOptions,
  type ToolDescriptor,
  type ToolResult,
} from '../registry/tool-descriptor.js';
import { compileToolFilter, type ToolFilter } from '../registry/tool-filter.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { toolFailure, toolFailureOf } from '../tool-call/tool-failure.js';
import { toMcpToolResult } from './tool-result.js';

/** A tool as discovered on the server, with what the adapter inferred about it. */
export interface McpToolDescriptor {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema | undefined;
  readonly annotations: ToolAnnotations | undefined;
  readonly capabilities: ToolCapability;
  readonly provenance: InferredCapabilities['provenance'];
  /** What the capabilities were inferred from. */
  readonly inference: InferenceInput;
  /** Why the tool cannot be called (its input or output schema does not compile), if so. */
  readonly unusable: string | undefined;
}

export type McpToolResult = ToolResult;

export interface McpToolAdapterOptions {
  /** Per-tool overrides from the tool YAML, by the tool's own name. */
  readonly overrides?: Readonly<Record<string, CapabilityOverrides>>;
}

export interface RegisterOptions {
  /** Default: the server's name. */
  readonly namespace?: string;
  readonly filter?: ToolFilter;
}

/**
 * @example
 * const adapter = new McpToolAdapter({ name: 'everything', command: 'node', args: [path, 'stdio'] });
 * await adapter.connect();
 * await adapter.registerTools(registry);                  // everything/echo, everything/get-sum, ...
 * const result = await adapter.invoke('echo', { message: 'hi' });
 * if (!result.success) console.error(result.errorCode, result.error);
 */
export class McpToolAdapter {
  readonly client: McpClient;
  private readonly overrides: Readonly<Record<string, CapabilityOverrides>>;
  private connected = false;
  /** The refresh after a `tools/list_changed`, while one runs; `refreshAgain` when another came meanwhile. */
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private discovered: Map<string, McpToolDescriptor> | undefined;
  private readonly listeners = new Set<(tools: readonly McpToolDescriptor[]) => void>();
  private readonly registrations = new Map<ToolRegistry, Map<string, RegisterOptions>>();
  private readonly subscription: { unsubscribe(): void };

  constructor(server: McpClient | McpServerConfig, options: McpToolAdapterOptions = {}) {
    this.client = server instanceof McpClient ? server : new McpClient(server);
    this.overrides = options.overrides ?? {};
    this.subscription = this.client.toolsChanged$.subscribe(() => this.onListChanged());
  }

  /** The server's name. */
  get server(): string {
    return this.client.name;
  }

  get isConnected(): boolean {
    return this.connected;
  }

  /** Starts the server (or connects to it) and performs the handshake. */
  async connect(options: { timeoutMs?: number } = {}): Promise<void> {
    this.connected = true;
    try {
      await this.client.start(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs });
    } catch (error) {
      this.connected = false;
      throw error;
    }
  }

  /** Clean shutdown of the server connection; `invoke` and `discoverTools` then throw NOT_CONNECTED. */
  async disconnect(): Promise<void> {
    this.connected = false;
    this.discovered = undefined;
    await this.client.stop();
  }

  /** Disconnects and connects again; the cached tool list is cleared. */
  async reconnect(options: { timeoutMs?: number } = {}): Promise<void> {
    this.discovered = undefined;
    this.connected = true;
    await this.client.reconnect(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs });
  }

  /** Enumerates the server's tools (every page), optionally filtered by include/exclude lists. */
  async discoverTools(filter?: ToolFilter): Promise<McpToolDescriptor[]> {
    this.assertConnected('discoverTools()');
    const tools = await this.client.listTools();
    const descriptors = new Map(tools.map((tool) => [tool.name, this.describe(tool)] as const));
    this.discovered = descriptors;
    const keep = compileToolFilter(filter);
    return [...descriptors.values()].filter((tool) => keep(tool.name));
  }

  /**
   * Calls a tool: arguments copied through a safe parse, validated against the input schema
   * before the call, the output checked against the output schema where there is one.
   */
  async invoke(name: string, args: unknown = {}, options: InvokeOptions = {}): Promise<McpToolResult> {
    this.assertConnected('invoke()');
    const started = performance.now();

    let copy: Record<string, unknown>;
    try {
      const parsed = safeJsonCopy(args);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        return toolFailure(started, 'VALIDATION', `validation failed: the arguments of "${name}" must be an object of named arguments`);
      }
      copy = parsed;
    } catch (error) {
      if (error instanceof NotJsonError) return toolFailure(started, 'VALIDATION', `validation failed: ${error.message}`, { cause: error });
      throw error;
    }

    // Known tools are found without an await (a promise and a microtask hop per call).
    let tool = this.discovered?.get(name);
    if (!tool) {
      try {
        tool = await this.lookup(name);
      } catch (error) {
        return toolFailureOf(started, error);
      }
    }
    if (!tool) {
      return toolFailure(started, 'NOT_FOUND', `tool "${name}" not found on server "${this.server}"`, { details: { server: this.server } });
    }
    if (tool.unusable) return toolFailure(started, 'VALIDATION', `validation failed: ${tool.unusable}; the call was not sent`);
    const input = options[VALIDATED_AGAINST] === tool.inputSchema ? undefined : compileSchema(tool.inputSchema);
    if (input?.ok && !input.validate(copy)) {
      const violations = violationsOf(input.validate.errors);
      return toolFailure(started, 'VALIDATION', `validation failed for "${name}": ${describeViolations(violations)}`, { violations });
    }

    let answer;
    try {
      answer = await this.client.callTool(name, copy, options);
    } catch (error) {
      return toolFailureOf(started, error);
    }
    return toMcpToolResult(answer, tool, performance.now() - started);
  }

  /**
   * Discovers the tools and registers them as `<namespace>/<tool>` with `source: 'mcp'`; keeps
   * them in step with the server from then on (removed tools disappear, changed ones update).
   */
  async registerTools(registry: ToolRegistry, options: RegisterOptions = {}): Promise<ToolDescriptor[]> {
    const namespace = options.namespace ?? this.server;
    const byNamespace = this.registrations.get(registry) ?? new Map<string, RegisterOptions>();
    byNamespace.set(namespace, options);
    this.registrations.set(registry, byNamespace);
    return this.syncRegistry(registry, namespace, options, await this.discoverTools(options.filter));
  }

  /** Stops keeping `registry` in step with the server (its tools stay as they are). */
  unregisterFrom(registry: ToolRegistry): void {
    this.registrations.delete(registry);
  }

  /** Calls `listener` with the new tool list after the server says it changed; returns an unsubscribe. */
  onToolsChanged(listener: (tools: readonly McpToolDescriptor[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops the server and drops every subscription. */
  async dispose(): Promise<void> {
    this.subscription.unsubscribe();
    this.listeners.clear();
    this.registrations.clear();
    this.connected = false;
    await this.client.dispose();
  }

  /**
   * What capabilities a tool of this name (and annotations) gets; see the README's table.
   * Annotations count in full only from a `trusted` server.
   */
  static inferCapabilities(toolName: string, annotations?: ToolAnnotations, options: { trusted?: boolean } = {}): ToolCapability {
    return inferCapabilities({ toolName, ...(annotations ? { annotations } : {}), trusted: options.trusted ?? false }).capability;
  }

  private describe(tool: Tool): McpToolDescriptor {
    const annotations = tool.annotations;
    const override = this.overrides[tool.name];
    const inference: InferenceInput = {
      toolName: tool.name,
      ...(annotations ? { annotations } : {}),
      trusted: this.client.config.trusted,
      ...(override ? { overrides: [{ at: `tools.${this.server}/${tool.name}.overrides`, values: override }] } : {}),
    };
    const inferred = inferCapabilities(inference);
    const inputSchema = tool.inputSchema as JsonSchema;
    const outputSchema = tool.outputSchema as JsonSchema | undefined;
    const problems: string[] = [];
    const input = compileSchema(inputSchema);
    if (!input.ok) problems.push(`the server's input schema for "${tool.name}" does not compile (${input.problem})`);
    if (outputSchema) {
      const output = compileSchema(outputSchema);
      if (!output.ok) problems.push(`the server's output schema for "${tool.name}" does not compile (${output.problem})`);
    }
    return {
      name: tool.name,
      description: tool.description ?? '',
      inputSchema,
      outputSchema,
      annotations,
      capabilities: inferred.capability,
      provenance: inferred.provenance,
      inference,
      unusable: problems.length > 0 ? problems.join('; ') : undefined,
    };
  }

  private async lookup(name: string): Promise<McpToolDescriptor | undefined> {
    if (!this.discovered?.has(name)) await this.discoverTools();
    return this.discovered?.get(name);
  }

  private syncRegistry(
    registry: ToolRegistry,
    namespace: string,
    options: RegisterOptions,
    tools: readonly McpToolDescriptor[],
  ): ToolDescriptor[] {
    const keep = compileToolFilter(options.filter);
    const records = tools
      .filter((tool) => keep(tool.name))
      .map((tool) => ({
        descriptor: {
          name: `${namespace}/${tool.name}`,
          namespace,
          toolName: tool.name,
          description: tool.description,
          inputSchema: tool.inputSchema,
          outputSchema: tool.outputSchema,
          annotations: tool.annotations,
          source: 'mcp',
          sourceMetadata: { server: this.server },
          capabilities: tool.capabilities,
          provenance: tool.provenance,
          checkpointable: false,
          unusable: tool.unusable,
          inference: tool.inference,
        } satisfies ToolDescriptor,
        // The client times the request itself (the SDK's timeout, which cancels it on the wire and
        // answers REQUEST_TIMEOUT): the call path arms no second timer for it.
        handler: Object.assign(
          (args: Record<string, unknown>, invokeOptions: InvokeOptions) => this.invoke(tool.name, args, invokeOptions),
          {
            [KEEPS_OWN_DEADLINE]: true as const,
          },
        ),
      }));
    registry.replaceNamespace(namespace, records);
    return records.map((record) => record.descriptor);
  }

  /**
   * One refresh at a time, however many `tools/list_changed` come: a server that sends them in a
   * loop would otherwise have the host send a `tools/list` for each (thousands in flight, the heap
   * past 800 MB in half a minute). A change during a refresh asks for one more after it.
   */
  private onListChanged(): void {
    this.discovered = undefined;
    if (!this.connected) return;
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = this.refresh().finally(() => (this.refreshing = undefined));
  }

  private async refresh(): Promise<void> {
    do {
      this.refreshAgain = false;
      let tools: McpToolDescriptor[];
      try {
        tools = await this.discoverTools();
      } catch {
        return; // the server went away; the next discovery after it is back refreshes everything
      }
      // Asked for after every change so far but the last `refreshAgain` ones: applied, then asked again.
      for (const [registry, namespaces] of this.registrations) {
        for (const [namespace, options] of namespaces) this.syncRegistry(registry, namespace, options, tools);
      }
      for (const listener of [...this.listeners]) listener(tools);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- onListChanged() sets refreshAgain while discoverTools() is awaited; TypeScript keeps the `= false` narrowing across the await
    } while (this.refreshAgain && this.connected);
  }

  private assertConnected(what: string): void {
    if (this.connected) return;
    throw new McpActorsError(ErrorCode.NOT_CONNECTED, `${what} on server "${this.server}" needs a connection: call connect() first`, {
      details: { server: this.server },
    });
  }
}
