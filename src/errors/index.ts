export { ErrorCode } from './codes.js';
export { McpActorsError, isMcpActorsError, messageOf, type ErrorDetails, type McpActorsErrorOptions } from './mcp-actors-error.js';
export { ConfigError, isConfigError, type ConfigProblem } from './config-error.js';
export { SandboxPathError, SandboxPathReason, isSandboxPathError, type SandboxPathProblem } from './sandbox-path-error.js';
