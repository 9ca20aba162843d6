#!/usr/bin/env node
/**
 * A host process for the confinement test: it embeds the built runtime, starts the probe server
 * (confined or not, as told), has it fork a grandchild, prints `{ leader }` and waits for the
 * test's SIGKILL. Plain JavaScript on purpose: it is spawned with Node 20.
 *
 *   node test/support/confine-host.mjs <confined|unconfined> <root>
 */
import { fileURLToPath } from 'node:url';
import { McpClient } from '../../dist/index.js';

const [mode = '', root = ''] = process.argv.slice(2);
const probe = fileURLToPath(new URL('./confine-probe-server.mjs', import.meta.url));
const client = new McpClient({
  name: 'confine-host',
  command: process.execPath,
  args: [probe],
  confine: mode === 'confined' ? { root } : false,
});
const result = await client.callTool('fork', {}, { timeoutMs: 15_000 });
const first = result.content[0];
if (first?.type !== 'text' || !first.text.startsWith('ok ')) {
  process.stderr.write(`confine-host: fork failed: ${JSON.stringify(result)}\n`);
  process.exit(4);
}
process.stdout.write(`${JSON.stringify({ leader: client.status().pid })}\n`);
setInterval(() => {}, 1 << 30);
