// One supervised server without a runtime: McpClient starts it on first use and stops it cleanly.
import { McpClient } from 'mcp-actors';

const client = new McpClient({
  name: 'everything',
  command: 'node',
  args: ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'stdio'],
  idleStopMs: 60_000, // stop after a minute without calls; the next call starts it again
});
try {
  client.state$.subscribe((state) => console.log(state)); // STOPPED, STARTING, RUNNING, ...
  const tools = await client.listTools(); // the first use starts the server
  console.log(tools.map((tool) => tool.name).join(', '));
  const result = await client.callTool('echo', { message: 'hi' }, { timeoutMs: 5_000 });
  if (result.isError)
    console.error(result.content[0]); // a tool failure is an answer, not a throw
  else console.log(result.content[0].text);
} finally {
  await client.stop(); // no process of the server is left
}
