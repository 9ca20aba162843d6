export * from './server-schema.js';
export { validateServerConfig, isResolvedServerConfig, type ValidateServerConfigOptions } from './server-config.js';
export { toSnakeKey, toCamelKey, type KeyStyle } from './file-keys.js';
export {
  parseAgentsConfig,
  loadAgentsFile,
  checkAgentsFile,
  agentsConfigFromObject,
  toolPatternMatches,
  skillIncludesTool,
  overridesFor,
  type AgentsConfig,
  type AgentsConfigOptions,
  type CheckedAgentsFile,
  type ParseAgentsConfigOptions,
  type ActorConfig,
  type SkillConfig,
  type SkillServerRef,
  type CapabilityOverrides,
} from './agents-file.js';
export { agentsFileSchema, AGENTS_FILE_SECTIONS, EXECUTE_POLICIES, DEFAULT_EXECUTE_POLICY, DEFAULT_TENANT_KEY, type ExecutePolicy } from './agents-file-schema.js';
export {
  expandEnvReferences,
  resolveEnvReferences,
  RUNTIME_PLACEHOLDERS,
  type RuntimePlaceholder,
  type EnvironmentVariables,
  type EnvReferenceProblem,
} from './env-references.js';
export { type SourcePosition, type ProblemLocation } from './source-locations.js';
export { parseMcpServersJson, type ParseMcpServersJsonOptions } from './mcp-servers-json.js';
export { confineSchema, type ConfineSetting, type ConfineOptions, type ConfineNetwork } from './confine-setting.js';
