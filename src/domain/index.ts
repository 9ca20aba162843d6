export {
  TOOL_CATEGORIES,
  categoryAnnotations,
  categoryCapabilities,
  isToolCategory,
  toolCategory,
  type CategorizedTool,
  type CategoryDecision,
  type ToolCategory,
} from './tool-category.js';
export { DEFAULT_TENANT_ARGUMENT_NAMES } from '../tenancy/tenancy.js';
export { LOG_LEVELS, TOOL_NAME_PATTERN, defineTool, type DomainTool, type LogLevel, type ToolContext } from './define-tool.js';
export { defineServer, type DomainServer, type DomainServerDefinition } from './define-server.js';
export {
  registerInProcessServer,
  type CallIdentity,
  type LogEntry,
  type ProgressUpdate,
  type RegisterInProcessOptions,
} from './in-process-server.js';
export { toolContent, isToolContent, type ToolContent } from './tool-content.js';
