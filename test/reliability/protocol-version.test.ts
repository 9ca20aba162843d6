/**
 * A server answering initialize with a protocol version this client does not speak cannot get
 * better by restarting: ERROR at once, one spawn, a message naming both versions.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { McpClient } from '../../src/client/mcp-client.js';
import { fixtureServerConfig } from '../../src/testing/fixture.js';
import { rejection } from '../support/rejection.js';

const clients: McpClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.dispose();
});

describe('a protocol-version mismatch', () => {
  it('goes to ERROR without retries, naming both versions', async () => {
    const states: string[] = [];
    const c = new McpClient(fixtureServerConfig({ name: 'old', protocolVersion: '1999-01-01', extra: { backoff: { initialMs: 10 } } }));
    clients.push(c);
    c.state$.subscribe((s) => states.push(s));
    const failed = await rejection(c.start({ timeoutMs: 15_000 }));
    expect(failed.code).toBe('SERVER_IN_ERROR');
    expect(c.state).toBe('ERROR');
    const last = c.status().lastError!;
    expect(last.code).toBe('PROTOCOL_ERROR');
    expect(last.details).toMatchObject({ kind: 'protocolVersion', serverVersion: '1999-01-01', clientVersion: LATEST_PROTOCOL_VERSION });
    expect(last.message).toContain('1999-01-01');
    expect(last.message).toContain(LATEST_PROTOCOL_VERSION);
    expect(c.status().restarts).toBe(0);
    expect(states.filter((s) => s === 'STARTING')).toHaveLength(1);
  });
});
