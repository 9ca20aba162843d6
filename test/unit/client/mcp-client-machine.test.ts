import { describe, expect, it } from 'vitest';
import { defaultServerActors } from '../../../src/server/server-actors.js';
import { McpClient } from '../../../src/client/mcp-client.js';

const config = (name: string) => ({ name, command: process.execPath, args: ['-e', ''] });

describe('McpClient machine', () => {
  it('shares one provided server machine between clients with the default actors', async () => {
    const a = new McpClient(config('a'));
    const b = new McpClient(config('b'));
    try {
      expect(a.actor.getSnapshot().machine).toBe(b.actor.getSnapshot().machine);
    } finally {
      await Promise.all([a.dispose(), b.dispose()]);
    }
  });

  it('provides a machine of its own to a client with custom actors', async () => {
    const custom = new McpClient(config('c'), { actors: { pingServer: defaultServerActors.pingServer } });
    const plain = new McpClient(config('d'));
    try {
      expect(custom.actor.getSnapshot().machine).not.toBe(plain.actor.getSnapshot().machine);
    } finally {
      await Promise.all([custom.dispose(), plain.dispose()]);
    }
  });
});
