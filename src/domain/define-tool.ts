/**
 * `defineTool`: one typed tool of a domain server (ADR-004-F's gold-standard tool): a name, the
 * domain it belongs to, its category, a description, JSON Schemas for input and output, and
 * `call(params, ctx)`. The definition is checked when it is made, so a bad tool fails at start-up
 * with the field that is wrong, not at its first call.
 */
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { ConfigError, type ConfigProblem } from '../errors/index.js';
import { compileSchema, type JsonSchema } from '../registry/json-schema-validators.js';
import { DEFAULT_TENANT_ARGUMENT_NAMES } from '../tenancy/tenancy.js';
import { TOOL_CATEGORIES, isToolCategory, type ToolCategory } from './tool-category.js';

/** MCP's tool-name alphabet (SEP-986); the same pattern is used for domain names. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * What a tool sees besides its parameters. The tenant is injected by the framework, never taken
 * from parameters: `ctx.tenant` always holds it, and it is also set under the configured tenant
 * key (`ctx.org_id` by default).
 */
export interface ToolContext {
  readonly tenant: string;
  readonly [tenantKey: string]: unknown;
  /**
   * Aborted when the call times out or the caller cancels it. In-process, it is made on first
   * read, so a tool that never looks at it costs nothing for it.
   */
  readonly signal: AbortSignal;
  /** Unique per call, for logs and audit (`_meta.callId` when the caller sends one). */
  readonly callId: string;
  /** Who the call is made for (the agent or user), when the session says. */
  readonly actor?: string;
  /**
   * Reports progress. Over MCP it becomes `notifications/progress` when the caller sent a
   * progress token (nothing otherwise); in-process, a runtime event.
   */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * Logs a message. Over MCP it becomes `notifications/message`, dropped below the level the
   * client set with `logging/setLevel`; in-process, a runtime event.
   */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /** Asks the user through the client (`elicitation/create`); present only when the client declared elicitation. */
  readonly elicit?: (params: ElicitRequestFormParams) => Promise<ElicitResult>;
  /** Asks the client's model (`sampling/createMessage`); present only when the client declared sampling. */
  readonly sample?: (params: CreateMessageRequestParams) => Promise<CreateMessageResult>;
  /**
   * Present over streamable HTTP when the client can resume (SEP-1699): closes this call's SSE
   * stream now, so the client reconnects with `Last-Event-ID` and polls while the tool keeps
   * running; the answer comes on the resumed stream. For long calls behind proxies that cut idle
   * connections.
   */
  readonly releaseStream?: () => void;
}

/** MCP's log levels (RFC 5424), least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * One tool of a domain. `call` returns the structured output — a JSON object, checked against
 * `output` when there is one, served as JSON text plus `structuredContent` — or MCP content made
 * with `toolContent(...)` (text, image, audio, embedded resources, resource links, several
 * blocks), or a string (one text block), or nothing; it throws to fail (the message becomes the
 * error).
 */
export interface DomainTool<I = Record<string, unknown>, O = unknown> {
  /** The MCP tool name, `^[A-Za-z0-9_.-]{1,128}$`, e.g. `roster_list_shifts`. */
  readonly name: string;
  /** The domain (bounded context) the tool belongs to, e.g. `roster`. */
  readonly domain: string;
  readonly category: ToolCategory;
  readonly description: string;
  /** JSON Schema of the parameters; `type: 'object'`, as MCP requires. */
  readonly input: JsonSchema;
  /** JSON Schema of the structured output; `type: 'object'`, as MCP requires. */
  readonly output?: JsonSchema;
  call(params: I, ctx: ToolContext): O | Promise<O>;
}

/**
 * Checks a tool definition and returns it unchanged. Throws a `ConfigError` that names the tool
 * and every field that is wrong: the name, the category, a schema that is not `type: 'object'` or
 * does not compile, an input property named like the tenant.
 *
 * @example
 * export const listShifts = defineTool({
 *   name: 'roster_list_shifts',
 *   domain: 'roster',
 *   category: 'read',
 *   description: 'Shifts between two dates, optionally at one site.',
 *   input: {
 *     type: 'object',
 *     properties: { date_from: { type: 'string', format: 'date' }, date_to: { type: 'string', format: 'date' } },
 *     required: ['date_from', 'date_to'],
 *   },
 *   call: ({ date_from, date_to }: { date_from: string; date_to: string }, ctx) => ({
 *     shifts: shiftsOf(ctx.tenant, date_from, date_to),
 *   }),
 * });
 */
export function defineTool<I, O>(tool: DomainTool<I, O>): DomainTool<I, O> {
  const problems = domainToolProblems(tool);
  if (problems.length > 0) throw new ConfigError(problems, { subject: `domain tool ${labelOf(tool)}` });
  return tool;
}

/**
 * Everything wrong with one tool definition; paths start with `prefix` (the tool's name by
 * default). `tenantNames` are the argument names an input schema must not declare.
 */
export function domainToolProblems(
  tool: unknown,
  prefix?: string,
  tenantNames: readonly string[] = DEFAULT_TENANT_ARGUMENT_NAMES,
): ConfigProblem[] {
  if (typeof tool !== 'object' || tool === null) {
    return [{ path: prefix ?? '(tool)', problem: `must be a tool definition object, not ${describe(tool)}` }];
  }
  const t = tool as Partial<Record<keyof DomainTool, unknown>>;
  const at = prefix ?? (typeof t.name === 'string' && t.name !== '' ? t.name : '(tool)');
  const problems: ConfigProblem[] = [];

  if (typeof t.name !== 'string' || !TOOL_NAME_PATTERN.test(t.name)) {
    problems.push({
      path: `${at}.name`,
      problem: `must be 1-128 letters, digits, "_", "." or "-" (an MCP tool name), not ${describe(t.name)}`,
      hint: 'e.g. "roster_list_shifts"',
    });
  }
  if (typeof t.domain !== 'string' || !TOOL_NAME_PATTERN.test(t.domain)) {
    problems.push({
      path: `${at}.domain`,
      problem: `must be a name of letters, digits, "_", "." or "-", not ${describe(t.domain)}`,
      hint: 'e.g. "roster"',
    });
  }
  if (!isToolCategory(t.category)) {
    problems.push({ path: `${at}.category`, problem: `must be one of ${TOOL_CATEGORIES.join(', ')}, not ${describe(t.category)}` });
  }
  if (typeof t.description !== 'string' || t.description.trim() === '') {
    problems.push({ path: `${at}.description`, problem: 'must be a non-empty string: the model chooses tools by their descriptions' });
  }
  if (typeof t.call !== 'function') {
    problems.push({ path: `${at}.call`, problem: `must be a function (params, ctx) => output, not ${describe(t.call)}` });
  }
  problems.push(...schemaProblems(t.input, `${at}.input`, true));
  if (t.output !== undefined) problems.push(...schemaProblems(t.output, `${at}.output`, false));
  if (isPlainObject(t.input)) problems.push(...tenantPropertyProblems(t.input, `${at}.input`, tenantNames));
  return problems;
}

function schemaProblems(schema: unknown, at: string, required: boolean): ConfigProblem[] {
  if (!isPlainObject(schema)) {
    const problem: ConfigProblem = { path: at, problem: `must be a JSON Schema object, not ${describe(schema)}` };
    return [required ? { ...problem, hint: "a tool without parameters takes { type: 'object', properties: {} }" } : problem];
  }
  if (schema.type !== 'object') {
    return [{ path: `${at}.type`, problem: `must be "object" (MCP tool schemas describe an object), not ${describe(schema.type)}` }];
  }
  const compiled = compileSchema(schema);
  return compiled.ok ? [] : [{ path: at, problem: `does not compile: ${compiled.problem}` }];
}

// The input schema may not even offer a tenant parameter: the handler would refuse every call
// that used it, and the model would be invited to try.
function tenantPropertyProblems(schema: Record<string, unknown>, at: string, tenantNames: readonly string[]): ConfigProblem[] {
  const properties = schema.properties;
  if (!isPlainObject(properties)) return [];
  const refused = new Set(tenantNames.map((name) => name.toLowerCase()));
  return Object.keys(properties)
    .filter((key) => refused.has(key.toLowerCase()))
    .map((key) => ({
      path: `${at}.properties.${key}`,
      problem: `declares the tenant argument "${key}"; the tenant is injected from the session as ctx.tenant, never taken from parameters`,
      hint: 'remove the property and read ctx.tenant',
    }));
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function labelOf(tool: unknown): string {
  const name = isPlainObject(tool) ? tool.name : undefined;
  return typeof name === 'string' && name !== '' ? `"${name}"` : '(unnamed)';
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || typeof value === 'symbol')
    return String(value);
  return 'null';
}
