#!/usr/bin/env node
// The `agents` command. Node 20 cannot run TypeScript, so this runs the CLI compiled into dist/.
let cli;
try {
  cli = await import('../dist/cli/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !/Cannot find module '[^']*dist[\\/]cli[\\/]main\.js'/.test(String(error.message)))
    throw error;
  process.stderr.write('error: the agents CLI is not built (dist/cli/main.js is missing); run npm run build\n');
  process.exit(1);
}
await cli.main();
