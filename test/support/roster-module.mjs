/** A domain server module for `agents serve`: exports one defineServer() result, serves nothing itself. */
import { defineServer, defineTool } from '../../dist/index.js';

export const roster = defineServer({
  name: 'roster',
  tools: [
    defineTool({
      name: 'roster_whoami',
      domain: 'roster',
      category: 'read',
      description: 'Says which tenant it runs for.',
      input: { type: 'object', properties: {} },
      call: (_params, ctx) => ({ tenant: ctx.tenant }),
    }),
  ],
});
export const notAServer = { name: 'x' };
