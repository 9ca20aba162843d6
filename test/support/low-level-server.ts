/**
 * The SDK's protocol-level `Server`, for test servers that install raw request handlers (a fake
 * whose ping hangs, an old protocol's initialize, tools answered by hand). Reached through
 * `McpServer`, as the SDK asks now that `Server` itself is deprecated; built without options and
 * given its capabilities afterwards, because `McpServer` given `capabilities.tools` installs its own
 * tool handlers and announces `listChanged`. The result is the `Server` that
 * `new Server(info, { capabilities })` made.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Implementation, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';

export type LowLevelServer = McpServer['server'];

export function lowLevelServer(info: Implementation, capabilities: ServerCapabilities): LowLevelServer {
  const server = new McpServer(info).server;
  server.registerCapabilities(capabilities);
  return server;
}
