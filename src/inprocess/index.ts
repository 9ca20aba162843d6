export { TOOL_CATEGORIES, categoryAnnotations, categoryCapabilities, categoryOfCapability, isToolCategory, type ToolCategory } from './tool-category.js';
export { DEFAULT_TENANT_ARGUMENT_NAMES, TOOL_NAME_PATTERN, defineTool, type DomainTool, type ToolContext } from './define-tool.js';
export { defineServer, type DomainServer, type DomainServerDefinition } from './define-server.js';
export { registerInProcessServer, type RegisterInProcessOptions } from './in-process-server.js';
export { serveOverStdio, toCallToolResult, type ServeOptions, type ServedDomainServer } from './serve-stdio.js';
