/**
 * A domain server registered in-process: each tool becomes a registry record whose handler is a
 * direct function call — no JSON-RPC, no serialisation of the arguments — with the protocol's
 * shape kept (ADR-004-F): arguments checked against the input schema, the tenant injected from the
 * registration (never from arguments), the output checked against the output schema, and an MCP
 * result (`content` + structured `data`) back.
 *
 * The handler is a hot path, measured in microseconds: validators are compiled once at
 * registration, arguments the call path has validated against this very schema are not validated
 * again, and the context's AbortSignal is made only if the tool reads it.
 */
import type { ValidateFunction } from 'ajv';
import { ConfigError, ErrorCode, McpActorsError, messageOf } from '../errors/index.js';
import { inferCapabilities } from '../registry/capabilities.js';
import { compileSchema, describeViolations, violationsOf, type JsonSchema } from '../registry/json-schema-validators.js';
import {
  CALL_SIGNAL,
  KEEPS_OWN_DEADLINE,
  VALIDATED_AGAINST,
  type InvokeOptions,
  type ToolDescriptor,
  type ToolHandler,
  type ToolResult,
} from '../registry/tool-descriptor.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import type { ToolContentBlock } from '../registry/tool-content.js';
import type { CallSignal } from '../registry/call-signal.js';
import { MAX_TIMER_MS, timeoutReason, withDeadline } from '../timing/deadline.js';
import { toolFailure } from '../tool-call/tool-failure.js';
import type { DomainServer } from './define-server.js';
import { claimedTenant, tenancyOf, tenantArgumentIn, tenantArgumentMessage, type Tenancy } from '../tenancy/tenancy.js';
import { domainToolProblems, type DomainTool, type LogLevel, type ToolContext } from './define-tool.js';
import { categoryAnnotations, categoryCapabilities } from './tool-category.js';
import { contentProblem, isToolContent } from './tool-content.js';

export interface RegisterInProcessOptions {
  /** Registry namespace; default the server's name. */
  readonly namespace?: string;
  /** The session's tenant: every call of these tools runs for it (`ctx.tenant`). */
  readonly tenant: string;
  /** The context key that also holds the tenant (`ctx.org_id`); default `'org_id'`. */
  readonly tenantKey?: string;
  /** Who the calls are made for, as `ctx.actor`. */
  readonly actor?: string;
  /** Argument names refused in any case; default `org_id`, `tenant`, `tenant_id`, plus `tenantKey`. */
  readonly tenantArgumentNames?: readonly string[];
  /** Receives each `ctx.progress(...)` of a call (the runtime turns them into events). */
  readonly onProgress?: (update: ProgressUpdate, call: CallIdentity) => void;
  /** Receives each `ctx.log(...)` of a call (the runtime turns them into events). */
  readonly onLog?: (entry: LogEntry, call: CallIdentity) => void;
}

/** One `ctx.progress(...)`. */
export interface ProgressUpdate {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** One `ctx.log(...)`. */
export interface LogEntry {
  readonly level: LogLevel;
  readonly data: unknown;
  readonly logger?: string;
}

/** Which call a progress update or a log entry belongs to. */
export interface CallIdentity {
  /** `<server>/<tool>`. */
  readonly tool: string;
  readonly callId: string;
  readonly tenant: string;
}

/** Where a call's context sends what the tool reports or asks; every member optional. */
export interface CallHooks {
  readonly progress?: (update: ProgressUpdate, call: CallIdentity) => void;
  readonly log?: (entry: LogEntry, call: CallIdentity) => void;
  readonly elicit?: ToolContext['elicit'];
  readonly sample?: ToolContext['sample'];
  readonly releaseStream?: ToolContext['releaseStream'];
}

const NO_OPTIONS: InvokeOptions = Object.freeze({});
/** An in-process failure's message is also its one text block, as an MCP `isError` result carries it. */
const AS_TEXT = { messageAsText: true } as const;
const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** A tool ready to be called many times: validators compiled, tenant names lower-cased. */
export interface PreparedDomainTool {
  readonly tool: DomainTool;
  /** `<server>/<tool>`, for messages. */
  readonly label: string;
  readonly validateInput: ValidateFunction;
  readonly validateOutput: ValidateFunction | undefined;
  /** Lower-case argument names that are denied (the tenant's). */
  readonly deniedNames: ReadonlySet<string>;
  readonly tenantKey: string;
}

/**
 * Compiles a server's tools for calling. Throws a `ConfigError` when a tool is not a valid
 * definition or its input schema declares a tenant-named property.
 */
export function prepareDomainTools(server: DomainServer, { tenantKey, tenantNames, deniedNames }: Tenancy): PreparedDomainTool[] {
  const problems = server.tools.flatMap((tool) => domainToolProblems(tool, `${server.name}/${tool.name}`, tenantNames));
  if (problems.length > 0) throw new ConfigError(problems, { subject: `domain server "${server.name}"` });
  return server.tools.map((tool) => ({
    tool,
    label: `${server.name}/${tool.name}`,
    validateInput: compiled(tool.input),
    validateOutput: tool.output === undefined ? undefined : compiled(tool.output),
    deniedNames,
    tenantKey,
  }));
}

function compiled(schema: JsonSchema): ValidateFunction {
  const result = compileSchema(schema);
  if (!result.ok) throw new McpActorsError(ErrorCode.CONFIG_INVALID, `schema does not compile: ${result.problem}`);
  return result.validate;
}

/**
 * Registers every tool of `server` as `<namespace>/<tool>` (`source: 'custom'`), bound to one
 * tenant. The namespace is made exactly these tools; registering again (another tenant, a new
 * version) replaces them. Returns the descriptors.
 *
 * `checkpointable` is false: a domain tool's effects are in the domain (its database), not in the
 * sandbox, so a sandbox rollback cannot undo them.
 *
 * @example
 * const registry = new ToolRegistry();
 * registerInProcessServer(registry, roster, { tenant: session.orgId, actor: session.userId });
 * const result = await registry.handlerOf('roster/roster_list_shifts')({ date_from: '2026-05-01', date_to: '2026-05-07' }, {});
 * result.data; // { shifts: [...] }
 */
export function registerInProcessServer(registry: ToolRegistry, server: DomainServer, options: RegisterInProcessOptions): ToolDescriptor[] {
  // A JavaScript caller can leave either out.
  const givenOptions = options as Partial<RegisterInProcessOptions> | undefined;
  const givenServer = server as Partial<DomainServer> | undefined;
  const tenant = givenOptions?.tenant;
  if (typeof tenant !== 'string' || tenant === '') {
    throw new McpActorsError(
      ErrorCode.INVALID_ARGUMENT,
      `registerInProcessServer("${String(givenServer?.name)}") needs the session's tenant as a non-empty string in options.tenant; tools run for one tenant`,
    );
  }
  const namespace = options.namespace ?? server.name;
  if (typeof namespace !== 'string' || namespace === '' || namespace.includes('/')) {
    throw new McpActorsError(
      ErrorCode.INVALID_ARGUMENT,
      `namespace must be a non-empty string without "/", not ${JSON.stringify(namespace)}`,
    );
  }
  const tenancy = tenancyOf(options);
  const actor = options.actor;
  if (actor !== undefined && typeof actor !== 'string') {
    throw new McpActorsError(ErrorCode.INVALID_ARGUMENT, 'options.actor must be a string when given');
  }
  for (const existing of registry.list({ namespace })) {
    const owner = existing.sourceMetadata;
    if (owner.inProcess !== true || owner.server !== server.name) {
      throw new McpActorsError(
        ErrorCode.DUPLICATE_NAME,
        `namespace "${namespace}" already holds "${existing.name}" from ${owner.server === undefined ? `a ${existing.source} source` : `server "${owner.server}"`}; register the domain server under another namespace`,
        { details: { namespace, existing: existing.name } },
      );
    }
  }

  const hooks: CallHooks | undefined =
    options.onProgress === undefined && options.onLog === undefined
      ? undefined
      : {
          ...(options.onProgress === undefined ? {} : { progress: options.onProgress }),
          ...(options.onLog === undefined ? {} : { log: options.onLog }),
        };
  const records = prepareDomainTools(server, tenancy).map((prepared) => {
    const { tool } = prepared;
    const inference = {
      toolName: tool.name,
      overrides: [{ at: `category ${tool.category} of ${server.name}/${tool.name}`, values: categoryCapabilities(tool.category) }],
    };
    const { capability, provenance } = inferCapabilities(inference);
    const descriptor: ToolDescriptor = {
      name: `${namespace}/${tool.name}`,
      namespace,
      toolName: tool.name,
      description: tool.description,
      inputSchema: tool.input,
      outputSchema: tool.output,
      annotations: categoryAnnotations(tool.category),
      source: 'custom',
      sourceMetadata: { server: server.name, domain: tool.domain, category: tool.category, inProcess: true },
      capabilities: capability,
      provenance,
      checkpointable: false,
      inference,
    };
    return { descriptor, handler: inProcessHandler(prepared, tenant, actor, hooks) };
  });
  registry.replaceNamespace(namespace, records);
  return records.map((record) => record.descriptor);
}

function inProcessHandler(
  prepared: PreparedDomainTool,
  tenant: string,
  actor: string | undefined,
  hooks: CallHooks | undefined,
): ToolHandler {
  const { tenantKey } = prepared;
  // Not typed as a ToolHandler: a JavaScript caller may leave the options out.
  const handler = (args: Record<string, unknown>, options: InvokeOptions = NO_OPTIONS): Promise<ToolResult> => {
    const meta = options.meta;
    if (meta === undefined) return callDomainTool(prepared, args, tenant, actor, undefined, options, hooks);
    // The tenant is the registration's; a call whose _meta names another one is a cross-tenant bug upstream.
    const claimed = claimedTenant(meta, tenantKey, tenant);
    if (claimed !== undefined) {
      return Promise.resolve(
        toolFailure(
          performance.now(),
          'TENANT_MISMATCH',
          `tenant mismatch: the call's _meta names tenant ${JSON.stringify(claimed)} but "${prepared.label}" was registered for tenant "${tenant}"; register the server per session`,
          AS_TEXT,
        ),
      );
    }
    const callId = typeof meta.callId === 'string' ? meta.callId : undefined;
    // The actor is the registration's, as the tenant is: never a value the call's _meta carries.
    return callDomainTool(prepared, args, tenant, actor, callId, options, hooks);
  };
  // callDomainTool races the tool against options.timeoutMs and the call's cancel itself.
  return Object.assign(handler, { [KEEPS_OWN_DEADLINE]: true as const });
}

/**
 * Runs one call of a prepared tool for `tenant`: the same steps in-process and over the wire.
 * Never throws for a tool-level failure; the `ToolResult` says what went wrong.
 */
export async function callDomainTool(
  prepared: PreparedDomainTool,
  args: Record<string, unknown>,
  tenant: string,
  actor: string | undefined,
  callId: string | undefined,
  options: InvokeOptions,
  hooks?: CallHooks,
): Promise<ToolResult> {
  const started = performance.now();
  const external = cancellationOf(options);
  if (external?.aborted) return toolFailure(started, 'CANCELLED', `call "${prepared.label}" was cancelled before it started`, AS_TEXT);
  // A JavaScript caller (or a framework's model) can pass anything.
  const givenArgs: unknown = args;
  if (typeof givenArgs !== 'object' || givenArgs === null || Array.isArray(givenArgs)) {
    return toolFailure(
      started,
      'VALIDATION',
      `validation failed for "${prepared.label}": the arguments must be an object of named arguments`,
      AS_TEXT,
    );
  }
  const tenantArgument = tenantArgumentIn(args, prepared.deniedNames);
  if (tenantArgument !== undefined) return tenantArgumentDenied(prepared, tenantArgument, started);
  const validateInput = prepared.validateInput;
  // The call path validated these arguments, as the tool receives them, against this schema.
  if (options[VALIDATED_AGAINST] !== prepared.tool.input && !validateInput(args)) {
    const violations = violationsOf(validateInput.errors);
    return toolFailure(started, 'VALIDATION', `validation failed for "${prepared.label}": ${describeViolations(violations)}`, {
      ...AS_TEXT,
      violations,
    });
  }

  const timeoutMs = options.timeoutMs;
  const timed = typeof timeoutMs === 'number' && timeoutMs <= MAX_TIMER_MS;
  const ctx = new CallContext(tenant, prepared.tenantKey, callId ?? nextCallId(), actor, external, timed, prepared.label, hooks);
  let value: unknown;
  try {
    value = prepared.tool.call(args, ctx);
  } catch (error) {
    return toolFailure(started, 'SERVER_ERROR', `tool "${prepared.label}" failed: ${messageOf(error)}`, { ...AS_TEXT, cause: error });
  }
  if (isThenable(value)) {
    const outcome =
      timed || external !== undefined ? await race(value, ctx, timed ? timeoutMs : undefined, external) : await settled(value);
    switch (outcome.kind) {
      case 'error':
        return toolFailure(started, 'SERVER_ERROR', `tool "${prepared.label}" failed: ${messageOf(outcome.error)}`, {
          ...AS_TEXT,
          cause: outcome.error,
        });
      case 'timeout':
        return toolFailure(
          started,
          'REQUEST_TIMEOUT',
          `tool "${prepared.label}" did not finish within ${timeoutMs} ms; its ctx.signal was aborted`,
          AS_TEXT,
        );
      case 'cancelled':
        return toolFailure(
          started,
          'CANCELLED',
          `call "${prepared.label}" was cancelled by the caller; its ctx.signal was aborted`,
          AS_TEXT,
        );
      default:
        value = outcome.value;
    }
  }
  return completed(prepared, value, started);
}

/**
 * The MCP result of a returned value: MCP content as it is (with its structured content), a string
 * as one text block, an object as the structured output with its JSON text as content.
 */
function completed(prepared: PreparedDomainTool, value: unknown, started: number): ToolResult {
  const validateOutput = prepared.validateOutput;
  if (isToolContent(value)) return contentCompleted(prepared, value.content, value.structuredContent, started);
  if (typeof value === 'string') return contentCompleted(prepared, [{ type: 'text', text: value }], undefined, started);
  if (value === undefined) {
    if (validateOutput !== undefined) {
      return toolFailure(
        started,
        'OUTPUT_VALIDATION',
        `output validation failed for "${prepared.label}": the tool declares an output schema but returned nothing`,
        AS_TEXT,
      );
    }
    return { success: true, content: [], data: undefined, error: undefined, errorCode: undefined, durationMs: performance.now() - started };
  }
  // MCP structured content is an object, so a tool that returns anything else could not be
  // served over the wire with the same answer.
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return toolFailure(
      started,
      'OUTPUT_VALIDATION',
      `output validation failed for "${prepared.label}": a domain tool returns a JSON object, a string, toolContent(...) or nothing, not ${Array.isArray(value) ? 'an array (wrap content blocks in toolContent([...]))' : value === null ? 'null' : `a ${typeof value}`}`,
      AS_TEXT,
    );
  }
  if (validateOutput !== undefined && !validateOutput(value)) {
    const violations = violationsOf(validateOutput.errors);
    return toolFailure(
      started,
      'OUTPUT_VALIDATION',
      `output validation failed for "${prepared.label}": ${describeViolations(violations)}`,
      { ...AS_TEXT, violations },
    );
  }
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    return toolFailure(
      started,
      'OUTPUT_VALIDATION',
      `output validation failed for "${prepared.label}": the output is not JSON (${messageOf(error)})`,
      { ...AS_TEXT, cause: error },
    );
  }
  return {
    success: true,
    content: [{ type: 'text', text }],
    data: value,
    error: undefined,
    errorCode: undefined,
    durationMs: performance.now() - started,
  };
}

function contentCompleted(
  prepared: PreparedDomainTool,
  content: readonly unknown[],
  structured: Readonly<Record<string, unknown>> | undefined,
  started: number,
): ToolResult {
  const problem = contentProblem(content);
  if (problem !== undefined)
    return toolFailure(started, 'OUTPUT_VALIDATION', `output validation failed for "${prepared.label}": ${problem}`, AS_TEXT);
  const validateOutput = prepared.validateOutput;
  if (validateOutput !== undefined) {
    if (structured === undefined) {
      return toolFailure(
        started,
        'OUTPUT_VALIDATION',
        `output validation failed for "${prepared.label}": the tool declares an output schema but its content has no structuredContent; pass it to toolContent(blocks, { structuredContent })`,
        AS_TEXT,
      );
    }
    if (!validateOutput(structured)) {
      const violations = violationsOf(validateOutput.errors);
      return toolFailure(
        started,
        'OUTPUT_VALIDATION',
        `output validation failed for "${prepared.label}": ${describeViolations(violations)}`,
        { ...AS_TEXT, violations },
      );
    }
  }
  return {
    success: true,
    content: content as readonly ToolContentBlock[], // contentProblem found none that MCP does not know
    data: structured,
    error: undefined,
    errorCode: undefined,
    durationMs: performance.now() - started,
  };
}

function tenantArgumentDenied(prepared: PreparedDomainTool, key: string, started: number): ToolResult {
  const error = tenantArgumentMessage(key, prepared.label);
  return toolFailure(started, 'TENANT_ARGUMENT', error, {
    ...AS_TEXT,
    violations: [{ path: `/${key}`, message: 'is a tenant argument; the tenant comes from the session' }],
  });
}

// Call ids: one random prefix a process, then a counter — unique without a UUID a call.
const CALL_ID_PREFIX = `call-${Math.floor(Math.random() * 0x100000000).toString(36)}-`;
let callSequence = 0;
function nextCallId(): string {
  return CALL_ID_PREFIX + (++callSequence).toString(36);
}

/**
 * The context of one call. `signal` is a getter so that an AbortController (about 2 us to make)
 * exists only when the tool reads it; without a timeout it is the caller's own signal.
 */
class CallContext implements ToolContext {
  readonly [tenantKey: string]: unknown;
  readonly tenant: string;
  readonly callId: string;
  readonly actor: string | undefined;
  declare readonly elicit?: ToolContext['elicit'];
  declare readonly sample?: ToolContext['sample'];
  declare readonly releaseStream?: ToolContext['releaseStream'];
  #external: Cancellation | undefined;
  #timed: boolean;
  #controller: AbortController | undefined;
  #abortReason: unknown;
  #aborted = false;
  #label: string;
  #hooks: CallHooks | undefined;

  constructor(
    tenant: string,
    tenantKey: string,
    callId: string,
    actor: string | undefined,
    external: Cancellation | undefined,
    timed: boolean,
    label: string,
    hooks: CallHooks | undefined,
  ) {
    this.tenant = tenant;
    this.callId = callId;
    this.actor = actor;
    if (tenantKey !== 'tenant') (this as Record<string, unknown>)[tenantKey] = tenant;
    this.#external = external;
    this.#timed = timed;
    this.#label = label;
    this.#hooks = hooks;
    // Own properties only when the client can answer, so `if (ctx.elicit)` tells the tool.
    if (hooks?.elicit !== undefined) (this as { elicit?: ToolContext['elicit'] }).elicit = hooks.elicit;
    if (hooks?.sample !== undefined) (this as { sample?: ToolContext['sample'] }).sample = hooks.sample;
    if (hooks?.releaseStream !== undefined) (this as { releaseStream?: ToolContext['releaseStream'] }).releaseStream = hooks.releaseStream;
  }

  progress(progress: number, total?: number, message?: string): void {
    const sink = this.#hooks?.progress;
    if (sink === undefined || typeof progress !== 'number') return;
    const update: ProgressUpdate = { progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) };
    // What a tool reports never fails the tool.
    try {
      sink(update, this.#identity());
    } catch {
      /* a failing observer is its own problem */
    }
  }

  log(level: LogLevel, data: unknown, logger?: string): void {
    const sink = this.#hooks?.log;
    if (sink === undefined) return;
    try {
      sink({ level, data, ...(logger === undefined ? {} : { logger }) }, this.#identity());
    } catch {
      /* a failing observer is its own problem */
    }
  }

  #identity(): CallIdentity {
    return { tool: this.#label, callId: this.callId, tenant: this.tenant };
  }

  get signal(): AbortSignal {
    // Untimed, the only way to abort is the caller's signal, so the tool gets that very signal.
    if (!this.#timed) return this.#external?.signal ?? NEVER_ABORTED;
    let controller = this.#controller;
    if (controller === undefined) {
      controller = new AbortController();
      this.#controller = controller;
      if (this.#aborted) controller.abort(this.#abortReason);
      else if (this.#external?.aborted) controller.abort(this.#external.reason);
    }
    return controller.signal;
  }

  /** Aborts the tool's signal (now, or when the tool first reads it). */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
  }
}

type Outcome =
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'error'; readonly error: unknown }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'cancelled' };

function settled(pending: PromiseLike<unknown>): Promise<Outcome> {
  return Promise.resolve(pending).then(
    (value) => ({ kind: 'value', value }),
    (error: unknown) => ({ kind: 'error', error }),
  );
}

/** The tool's answer within the call's deadline and cancel (the one deadline, `timing/deadline.ts`); either aborts `ctx.signal`. */
function race(
  pending: PromiseLike<unknown>,
  ctx: CallContext,
  timeoutMs: number | undefined,
  external: Cancellation | undefined,
): Promise<Outcome> {
  return withDeadline<Outcome>(settled(pending), {
    ms: timeoutMs,
    signal: external,
    onTimeout: () => {
      ctx.abort(timeoutReason(timeoutMs ?? 0));
      return TIMED_OUT;
    },
    onAbort: (reason) => {
      ctx.abort(reason);
      return CANCELLED;
    },
  });
}

const TIMED_OUT: Outcome = { kind: 'timeout' };
const CANCELLED: Outcome = { kind: 'cancelled' };

/** A call's cancellation as the handler uses it: the call path's `CallSignal`, or a caller's plain signal. */
type Cancellation = Pick<CallSignal, 'aborted' | 'reason' | 'signal' | 'onAbort'>;

function cancellationOf(options: InvokeOptions): Cancellation | undefined {
  // The call path's signal first: reading `options.signal` would make its AbortController.
  const call = options[CALL_SIGNAL];
  if (call !== undefined) return call;
  const signal = options.signal;
  if (signal === undefined) return undefined;
  return {
    get aborted() {
      return signal.aborted;
    },
    get reason(): unknown {
      const reason: unknown = signal.reason;
      return reason;
    },
    signal,
    onAbort(listener) {
      const onAbort = (): void => listener(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      return () => signal.removeEventListener('abort', onAbort);
    },
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
