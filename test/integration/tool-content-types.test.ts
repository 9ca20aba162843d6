/**
 * `outcome.result.content` is MCP's content-block union: a host narrows a block on `type` and reads
 * its fields typed (an image's `mimeType` and `data` are strings, a resource link's `uri` too)
 * without a cast — here with the blocks server-everything really sends. The SDK's own
 * `ContentBlock` stays assignable to it (the contract the adapter relies on).
 */
import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ToolContentBlock } from '../../src/registry/tool-content.js';
import type { ToolResult } from '../../src/registry/tool-descriptor.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { referenceServerPath } from '../../src/testing/reference-servers.js';

const env: Record<string, string> = process.env.MCP_ACTORS_PID_LOG ? { MCP_ACTORS_PID_LOG: process.env.MCP_ACTORS_PID_LOG } : {};

describe('the content of a tool result', () => {
  it('is the MCP content-block union, which the SDK’s ContentBlock fits', () => {
    expectTypeOf<ToolResult['content'][number]>().toEqualTypeOf<ToolContentBlock>();
    expectTypeOf<ContentBlock>().toExtend<ToolContentBlock>();
  });

  it('narrows on type to typed fields, with the blocks server-everything sends', async () => {
    const runtime = await createRuntime({
      config: {
        servers: { everything: { command: process.execPath, args: [referenceServerPath('everything'), 'stdio'], env } },
        skills: { media: { mcp_servers: [{ server: 'everything', include: ['get-tiny-image', 'get-resource-links'] }] } },
        actors: { viewer: { skills: ['media'], permissions: { execute: 'allow' } } },
      },
    });
    try {
      const viewer = await runtime.activate('viewer', { tenant: 'acme' });
      const image = await viewer.call('everything/get-tiny-image', {});
      const links = await viewer.call('everything/get-resource-links', { count: 2 });
      const seen: string[] = [];
      for (const block of [...(image.result?.content ?? []), ...(links.result?.content ?? [])]) {
        switch (block.type) {
          case 'text':
            seen.push(`text:${block.text.length > 0}`);
            break;
          case 'image': {
            const mimeType: string = block.mimeType;
            const data: string = block.data;
            seen.push(`image:${mimeType}:${Buffer.from(data, 'base64').subarray(1, 4).toString('latin1')}`);
            break;
          }
          case 'resource_link': {
            const uri: string = block.uri;
            seen.push(`link:${uri.split(':')[0]}`);
            break;
          }
          default:
            seen.push(block.type);
        }
      }
      expect(seen).toContain('image:image/png:PNG');
      expect(seen.filter((s) => s === 'link:demo')).toHaveLength(2);
      expect(seen).toContain('text:true');
    } finally {
      await runtime.shutdown();
    }
  });
});
