import { describe, expect, it } from 'vitest';
import { McpClient } from '../../../src/client/mcp-client.js';
import { parseAgentsConfig } from '../../../src/config/agents-file.js';
import { isResolvedServerConfig, validateServerConfig } from '../../../src/config/server-config.js';
import { bindPlaceholders } from '../../../src/runtime/placeholders.js';

describe('a configuration is validated once and handed down frozen', () => {
  it('McpClient takes a loaded server configuration as it is, without validating it again', async () => {
    const config = parseAgentsConfig('servers:\n  fx:\n    command: node\n    args: ["${SANDBOX_ROOT}"]\n', { env: {} });
    const fx = config.servers.fx!;
    expect(Object.isFrozen(fx)).toBe(true);
    expect(isResolvedServerConfig(fx)).toBe(true);
    await using client = new McpClient(fx);
    expect(client.config).toBe(fx);
    // Filling in the runtime's placeholders keeps it resolved.
    const bound = bindPlaceholders(fx, { TENANT: 'acme', SANDBOX_ROOT: '/tmp/sbx' });
    expect(isResolvedServerConfig(bound)).toBe(true);
    await using boundClient = new McpClient(bound);
    expect(boundClient.config).toBe(bound);
  });

  it('validates anything else: plain objects, and copies of a resolved configuration', async () => {
    const resolved = validateServerConfig({ name: 'a', command: 'node' });
    const copy = { ...resolved };
    expect(isResolvedServerConfig(copy)).toBe(false);
    await using client = new McpClient(copy);
    expect(client.config).not.toBe(copy);
    expect(client.config).toEqual(resolved);
    expect(() => new McpClient({ ...resolved, maxRestarts: -1 })).toThrow(/maxRestarts/);
  });
});
