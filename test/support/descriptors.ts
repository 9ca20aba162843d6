import { inferCapabilities, type CapabilityOverrides } from '../../src/registry/capabilities.js';
import type { ToolDescriptor } from '../../src/registry/tool-descriptor.js';

/** An MCP-like tool record for unit tests of the call path: capabilities inferred from the name and overrides. */
export function testTool(
  toolName: string,
  options: { overrides?: CapabilityOverrides; checkpointable?: boolean; inputSchema?: Record<string, unknown> } = {},
): ToolDescriptor {
  const inference = { toolName, ...(options.overrides ? { overrides: [{ at: 'test', values: options.overrides }] } : {}) };
  const inferred = inferCapabilities(inference);
  return {
    name: `fx/${toolName}`,
    namespace: 'fx',
    toolName,
    description: '',
    inputSchema: options.inputSchema ?? { type: 'object', properties: { path: { type: 'string' } } },
    outputSchema: undefined,
    annotations: undefined,
    source: 'mcp',
    sourceMetadata: { server: 'fx' },
    capabilities: inferred.capability,
    provenance: inferred.provenance,
    checkpointable: options.checkpointable ?? false,
    inference,
  };
}
