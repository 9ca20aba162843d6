export * from './server-schema.js';
export { validateServerConfig, isResolvedServerConfig, type ValidateServerConfigOptions } from './server-config.js';
export { toSnakeKey, toCamelKey, type KeyStyle } from './file-keys.js';
export * from './agents-file.js';
export {
  agentsFileSchema,
  AGENTS_FILE_SECTIONS,
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
export * from './mcp-servers-json.js';
export * from './confine-setting.js';
export type { AgentsFileConfig } from './agents-file-config.js';
export type { UnsetVariable } from './unset-variables.js';
