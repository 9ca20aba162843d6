import { describe, expect, it } from 'vitest';
import { capabilitiesText, formatTools, readOnlyReason, toolsJson } from '../../../src/cli/format-tools.js';
import { McpActorsError } from '../../../src/errors/mcp-actors-error.js';
import { inferCapabilities } from '../../../src/registry/capabilities.js';
import type { ActorTool } from '../../../src/runtime/actor-handle.js';

function tool(name: string, toolName: string, category: ActorTool['category']): ActorTool {
  const { capability, provenance } = inferCapabilities({ toolName });
  return {
    name,
    namespace: name.split('/')[0]!,
    toolName,
    description: '',
    inputSchema: { type: 'object' },
    outputSchema: undefined,
    annotations: undefined,
    source: 'mcp',
    sourceMetadata: { server: name.split('/')[0]! },
    capabilities: capability,
    provenance,
    checkpointable: false,
    category,
  };
}

const list = tool('files/list_directory', 'list_directory', 'read');
const write = tool('files/write_file', 'write_file', 'execute');

describe('tools formatting', () => {
  it('says read-only, writes, or writes and destructive', () => {
    expect(capabilitiesText(list.capabilities)).toBe('read-only');
    expect(capabilitiesText(write.capabilities)).toBe('writes, destructive');
    expect(capabilitiesText({ ...write.capabilities, destructive: false })).toBe('writes');
  });

  it('names the source that decided read-only', () => {
    expect(readOnlyReason(list)).toBe('name: word "list" in name');
  });

  it('prints a table of tools and the servers that did not start', () => {
    const unavailable = [{ server: 'github', error: new McpActorsError('ACTIVATION_FAILED', 'server "github" did not start') }];
    const text = formatTools({ actor: 'editor', tenant: 'acme', tools: [list, write], activation: { servers: ['files'], unavailable } });
    expect(text).toBe(
      [
        'actor editor for tenant acme: 2 tools from files',
        '',
        'TOOL                  CATEGORY  CAPABILITIES         READ-ONLY DECIDED BY',
        'files/list_directory  read      read-only            name: word "list" in name',
        'files/write_file      execute   writes, destructive  name: word "write" in name',
        '',
        'unavailable (their tools join once the server recovers):',
        '  github: [ACTIVATION_FAILED] server "github" did not start',
        '',
      ].join('\n'),
    );
    expect(toolsJson({ actor: 'editor', tenant: 'acme', tools: [list], activation: { servers: ['files'], unavailable } })).toMatchObject({
      servers: ['files'],
      tools: [
        { name: 'files/list_directory', category: 'read', capabilities: { readOnly: true }, provenance: { readOnly: { source: 'name' } } },
      ],
      unavailable: [{ server: 'github', code: 'ACTIVATION_FAILED' }],
    });
  });
});
