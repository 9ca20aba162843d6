/** The name and version this runtime gives in the MCP initialize handshake. */
export const CLIENT_INFO = { name: 'mcp-actors', version: '0.1.0' } as const;
