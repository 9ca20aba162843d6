export * from './server-config.js';
export {
  validateServerConfig,
  isResolvedServerConfig,
  type ValidateServerConfigOptions,
} from './validate-server-config.js';
export {
  serverConfigSchema,
  type ServerConfigSchema,
  SERVER_NAME_PATTERN,
  MAX_TIMER_MS,
  MIN_MESSAGE_BYTES,
} from './server-config-schema.js';
export {
  SERVER_KEY_MAP,
  SERVER_TOP_LEVEL_KEY_MAP,
  BACKOFF_KEY_MAP,
  SERVER_CONFIG_KEYS,
  BACKOFF_KEYS,
  type ServerConfigKey,
  type BackoffKey,
  serverConfigFromSnake,
  toSnakeKey,
  toCamelKey,
} from './config-keys.js';
export type { KeyStyle } from './problem-text.js';
export {
  parseAgentsConfig,
  loadAgentsFile,
  agentsConfigFromObject,
  toolPatternMatches,
  skillIncludesTool,
  overridesFor,
  type AgentsConfig,
  type AgentsConfigOptions,
  type ParseAgentsConfigOptions,
  type ActorConfig,
  type SkillConfig,
  type SkillServerRef,
  type CapabilityOverrides,
} from './agents-file.js';
export {
  agentsFileSchema,
  AGENTS_FILE_SECTIONS,
  CAPABILITY_KEY_MAP,
  EXECUTE_POLICIES,
  DEFAULT_EXECUTE_POLICY,
  DEFAULT_TENANT_KEY,
  type ExecutePolicy,
} from './agents-file-schema.js';
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
