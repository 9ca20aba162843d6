// The runtime a host embeds.
export {
  createRuntime,
  type ActivateOptions,
  type ActorSpec,
  type Runtime,
  type RuntimeOptions,
  type RuntimeStatus,
  type ServerStatus,
} from './runtime/create-runtime.js';
export { ActorHandle, type ActorCallOptions, type ActorTool } from './runtime/actor-handle.js';
export type { RuntimeEvent, AuditRecord } from './runtime/runtime-events.js';
export type { ApprovalCallback, ApprovalRequest, PermissionPolicy } from './runtime/permissions.js';
export { bindPlaceholders } from './runtime/placeholders.js';

// Errors and configuration.
export * from './errors/index.js';
export * from './config/index.js';

// Supervised servers.
export { ServerState } from './server/server-states.js';
export {
  serverMachine,
  publicStateOf,
  systemClock,
  type ServerClock,
  type ServerContext,
  type ServerEvent,
  type ServerMachineInput,
  type ServerSnapshot,
} from './server/server-machine.js';
export type { McpCapabilityMetadata, ServerConnection, ServerHandle, ConnectionEnded, TransportDiagnostics } from './server/server-io.js';
export { backoffDelay } from './timing/backoff.js';
export { McpClient, type CallOptions, type McpClientOptions, type McpServerStatus, type RequestOptions } from './client/mcp-client.js';
export { McpRegistry } from './client/mcp-registry.js';
export { defaultServerActors, type ServerActors } from './server/server-actors.js';
export { StdioProcessTransport, describeExit, type ProcessExit, type StdioProcessOptions } from './server/stdio-process-transport.js';
export { serverEnvironment } from './process/server-environment.js';

// Remote servers: OAuth, and the questions servers ask back (elicitation, sampling).
export * from './auth/index.js';
export type {
  ElicitHandler,
  ElicitParams,
  RuntimeElicitHandler,
  RuntimeRequestContext,
  RuntimeSampleHandler,
  SampleHandler,
  SampleParams,
  ServerRequestContext,
} from './server/server-requests.js';
export { withCallContext, type CallContext } from './server/call-context.js';

// Tools, skills and capabilities.
export {
  McpToolAdapter,
  type McpToolAdapterOptions,
  type McpToolDescriptor,
  type McpToolResult,
  type RegisterOptions,
} from './adapter/mcp-tool-adapter.js';
export { ToolRegistry, type ToolRegistryChange } from './registry/tool-registry.js';
export {
  TOOL_SOURCES,
  type InvokeOptions,
  type ToolDescriptor,
  type ToolHandler,
  type ToolResult,
  type ToolSource,
} from './registry/tool-descriptor.js';
export type {
  AudioContentBlock,
  BlobResourceContents,
  ContentAnnotations,
  EmbeddedResourceBlock,
  ImageContentBlock,
  ResourceLinkBlock,
  TextContentBlock,
  TextResourceContents,
  ToolContentBlock,
} from './registry/tool-content.js';
export {
  inferCapabilities,
  validateOverrides,
  type CapabilityProvenance,
  type CapabilitySource,
  type InferenceInput,
  type InferredCapabilities,
  type ToolAnnotations,
  type ToolCapability,
} from './registry/capabilities.js';
export { READ_WORDS, WRITE_WORDS } from './registry/capability-words.js';
export { SkillRegistry, type ResolvedToolSet, type SkillDefinition } from './registry/skill-registry.js';
export { McpRefreshHook } from './adapter/refresh-hook.js';
export { loadAgentSkill, type AgentSkill } from './registry/agent-skill.js';
export { compileToolFilter, type ToolFilter } from './registry/tool-filter.js';

// Sandbox, checkpoints and the tool-call machine.
export { Sandbox, type SandboxOptions, type SandboxKind, type ChangedFile, type ApplyResult } from './sandbox/sandbox.js';
export { SandboxWorkspace } from './sandbox/sandbox-workspace.js';
export { SandboxPathRewriter, type SandboxPathRewriterConfig } from './sandbox/path-rewriter.js';
export { CheckpointStore, type Checkpoint, type CheckpointStoreOptions } from './sandbox/checkpoint-store.js';
export type { RollbackConfinement } from './sandbox/confined-rollback.js';
export { ReadersWriterLock, type LockMode } from './sandbox/readers-writer-lock.js';
export { toolCallMachine, type ToolCallContext, type ToolCallEvent } from './tool-call/tool-call-machine.js';
export type { CallOutcome, CallStatus, FileChange, ToolCallInput, Authorization } from './tool-call/tool-call-io.js';
export { runToolCall, type ToolCallRequest, type RunOptions } from './tool-call/run-tool-call.js';
export { toolCallSteps, type ToolCallEnvironment, type ToolCallSteps } from './tool-call/tool-call-steps.js';
// The machine's one actor, over a set of steps: toolCallMachine.provide({ actors: toolCallActors(steps) }).
export { toolCallActors } from './tool-call/tool-call-actors.js';
export { CALL_STEPS, type CallStep, type CallState, type Move, type StepName } from './tool-call/call-flow.js';
export type { CallSignal } from './registry/call-signal.js';
export { actorMachine } from './runtime/actor-machine.js';
export { runtimeMachine } from './runtime/runtime-machine.js';
export { toMermaid } from './inspector/to-mermaid.js';

// In-process domain servers.
export * from './domain/index.js';
export * from './serve/index.js';

// Redaction: the one redactor every public output goes through.
export {
  Redactor,
  REDACTED,
  MIN_EMBEDDED_SECRET_LENGTH,
  type ArgumentRedaction,
  type RedactorOptions,
  type SecretBearingConfig,
} from './redaction/redactor.js';
// OS confinement of stdio servers (bubblewrap).
export { confinementStatus, type ConfinementState, type ConfinementStatus } from './process/confinement/confinement-status.js';
export { probeConfinement, type ConfinementProbe } from './process/confinement/probe.js';
export { confineCommand, type ConfinementPlan, type NetworkPlan, type SpawnCommand } from './process/confinement/bwrap-command.js';
export { DEFAULT_DENIED_READS, PACKAGE_CACHES } from './process/confinement/confine-options.js';
export { escapingLinks, type EscapingLink } from './sandbox/escape-links.js';
