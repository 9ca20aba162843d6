/**
 * A server's JSON-RPC error reaches the host whole: a real fixture server answers tools/call with
 * -32602 (Invalid params), and the actor's call gives one error of the family with one code, the
 * server's JSON-RPC code in `details.mcpCode`, the SDK's McpError as `cause`, and a message that
 * says it once (no "MCP error -32602:" stacked by the SDK twice, no code words prefixed by each
 * layer).
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMcpActorsError } from '../../src/errors/mcp-actors-error.js';
import { createRuntime, type Runtime } from '../../src/runtime/create-runtime.js';
import { fixtureServerConfig } from '../../src/testing/fixture.js';

let runtime: Runtime;

beforeAll(async () => {
  const { command, args, env } = fixtureServerConfig({ invalidParamsOnCall: true });
  runtime = await createRuntime({
    config: {
      servers: { refuser: { command, args, env } },
      skills: { refusing: { mcp_servers: [{ server: 'refuser', include: ['echo'] }] } },
      actors: { helper: { skills: ['refusing'], permissions: { execute: 'allow' } } },
    },
  });
});
afterAll(() => runtime.shutdown());

describe("a server's JSON-RPC error", () => {
  it('reaches the caller of actor.call as one code, with the server’s code in details.mcpCode and the SDK error as cause', async () => {
    const helper = await runtime.activate('helper', { tenant: 'acme' });
    const outcome = await helper.call('refuser/echo', { message: 'hi' });

    expect(outcome.status).not.toBe('committed');
    const error = outcome.error;
    expect(isMcpActorsError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'TOOL_FAILED', details: { mcpCode: -32602, kind: 'SERVER_ERROR', tool: 'refuser/echo' } });

    // The cause is the SDK's own error, with the code the server sent.
    expect(error?.cause).toBeInstanceOf(McpError);
    expect((error?.cause as McpError).code).toBe(-32602);

    // Said once, by the layer that knew it: the server's words, the code once, no prefix stacked.
    const message = error?.message ?? '';
    expect(message).toBe(
      'server "refuser" answered call "echo" with error -32602: Invalid arguments for tool echo: refused by --invalid-params-on-call',
    );
    expect(message).not.toContain('MCP error');
    expect(message.match(/-32602|SERVER_ERROR|TOOL_FAILED|PROTOCOL_ERROR/g)).toEqual(['-32602']);

    // The tool's result carries the same failure.
    expect(outcome.result?.failure).toMatchObject({ code: 'TOOL_FAILED', message, details: { mcpCode: -32602, kind: 'SERVER_ERROR' } });
    expect(outcome.result?.failure?.cause).toBe(error?.cause);
  });
});
