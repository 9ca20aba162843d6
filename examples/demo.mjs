// A short tour of the supervised lifecycle: lazy start, a crash and its restart, a crash loop
// that ends in ERROR, idle stop, and a shutdown that leaves no process behind.
// Run with `npm run demo` (it builds first).
import { McpClient, McpRegistry } from '../dist/index.js';
import { fixtureServerConfig, referenceServerConfig } from '../dist/testing/index.js';

const say = (text) => console.log(`  ${text}`);
const text = (result) => result.content[0].text;
const until = (client, state) =>
  new Promise((resolve) => {
    const sub = client.state$.subscribe((s) => {
      if (s === state) {
        queueMicrotask(() => sub.unsubscribe());
        resolve();
      }
    });
  });

const registry = new McpRegistry();
const everything = registry.register(new McpClient(referenceServerConfig('everything')));
const fixture = registry.register(new McpClient(fixtureServerConfig({ name: 'fixture', extra: { idleStopMs: 1_500 } })));
const flaky = registry.register(
  new McpClient(fixtureServerConfig({ name: 'flaky', exitOnStart: 3, extra: { maxRestarts: 2, backoff: { initialMs: 50 } } })),
);
for (const client of [everything, fixture, flaky]) {
  client.state$.subscribe((state) => console.log(`[${client.name}] ${state}`));
}

console.log('\n1. Lazy start: the first call starts the server.');
say(`everything says: ${text(await everything.callTool('echo', { message: 'hello from mcp-actors' }))}`);
const tools = await everything.listTools();
say(`${tools.length} tools, e.g. ${tools.slice(0, 4).map((t) => t.name).join(', ')}`);

console.log('\n2. A crash: SIGKILL the fixture; the supervisor restarts it and the next call works.');
say(`fixture echo: ${text(await fixture.callTool('echo', { message: 'before' }))}`);
const pid = fixture.status().pid;
process.kill(pid, 'SIGKILL');
say(`killed pid ${pid}`);
await until(fixture, 'STARTING');
await until(fixture, 'RUNNING');
say(`restarted as pid ${fixture.status().pid} after ${fixture.status().restarts} restart(s)`);
say(`fixture echo: ${text(await fixture.callTool('echo', { message: 'after' }))}`);

console.log('\n3. A crash loop: a server that exits on start goes to ERROR after maxRestarts.');
try {
  await flaky.start();
} catch (error) {
  say(`${error.code}: ${error.message.split('\n')[0]}`);
}

console.log('\n4. Idle stop: the fixture stops itself after 1.5 s without calls.');
await until(fixture, 'STOPPED');
say(`fixture is ${fixture.state}; the next call starts it again: ${text(await fixture.callTool('echo', { message: 'woken' }))}`);

console.log('\n5. Shutdown: every server stopped, no process left.');
const pids = [everything.status().pid, fixture.status().pid].filter(Boolean);
await registry[Symbol.asyncDispose]();
const alive = pids.filter((p) => {
  try {
    process.kill(p, 0);
    return true;
  } catch {
    return false;
  }
});
say(`pids ${pids.join(', ')} alive afterwards: ${alive.length === 0 ? 'none' : alive.join(', ')}`);
