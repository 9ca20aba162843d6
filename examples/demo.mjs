// A short tour of the supervised lifecycle: lazy start, a crash and its restart, a crash loop
// that ends in ERROR, idle stop, and a shutdown that leaves no process behind.
// Run with `npm run demo` (it builds first).
import { McpClient, McpRegistry } from '../dist/index.js';
import { fixtureServerConfig, referenceServerConfig } from '../dist/testing/index.js';

const say = (text) => console.log(`  ${text}`);
const text = (result) => result?.content?.[0]?.text;
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

// ---------------------------------------------------------------------------------------------
console.log('\n6. The runtime: an actor in a sandbox of a throwaway project, two tenants, a rollback.');
const { createRuntime, defineServer, defineTool } = await import('../dist/index.js');
const { execFileSync } = await import('node:child_process');
const { mkdtempSync, writeFileSync, readFileSync, rmSync, realpathSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');

const project = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-actors-demo-')));
const git = (...args) => execFileSync('git', args, { cwd: project, env: { ...process.env, GIT_AUTHOR_NAME: 'demo', GIT_AUTHOR_EMAIL: 'demo@example.com', GIT_COMMITTER_NAME: 'demo', GIT_COMMITTER_EMAIL: 'demo@example.com' } });
git('init', '-q');
writeFileSync(join(project, 'notes.md'), '# notes\n');
git('add', '-A');
git('commit', '-qm', 'start');

const clock = defineServer({
  name: 'clock',
  tools: [defineTool({ name: 'now', domain: 'clock', category: 'read', description: 'The time, for the tenant', input: { type: 'object' }, call: (_p, ctx) => ({ tenant: ctx.tenant, at: new Date(0).toISOString() }) })],
});
const runtime = await createRuntime({
  config: {
    servers: { files: { command: 'node', args: ['node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', '${SANDBOX_ROOT}'] } },
    skills: { editing: { mcp_servers: ['files', 'clock'] } },
    actors: { editor: { skills: ['editing'], permissions: { execute: 'ask' } } },
  },
  domainServers: [clock],
  approve: ({ tool, destructive }) => {
    say(`approval asked for ${tool.name} (destructive: ${destructive}) — granted`);
    return true;
  },
});
runtime.events$.subscribe((event) => {
  if (event.type === 'call.ended') say(`audit: ${event.actor}@${event.tenant} ${event.tool} → ${event.status}`);
});
const sandbox = await runtime.createSandbox(project);
const editor = await runtime.activate('editor', { tenant: 'acme', sandbox });
say(`tools: ${editor.tools().map((t) => `${t.name} (${t.category})`).slice(0, 4).join(', ')}, …`);
say(`in-process call: ${text((await editor.call('clock/now')).result)}`);
const write = await editor.call('files/write_file', { path: 'notes.md', content: '# notes\n\nwritten in the sandbox\n' });
say(`write_file → ${write.status}; server said "${text(write.result)}"; the project still reads ${JSON.stringify(readFileSync(join(project, 'notes.md'), 'utf8'))}`);
const escape = await editor.call('files/write_file', { path: '../outside.txt', content: 'x' });
say(`a path out of the sandbox → ${escape.status} (${escape.error.code})`);
const other = await runtime.activate('editor', { tenant: 'globex', sandbox });
await other.call('clock/now');
say(`two tenants, two filesystem servers: ${runtime.status().servers.map((s) => `${s.server}@${s.tenant} pid ${s.pid}`).join(', ')}`);
const second = await editor.call('files/write_file', { path: 'todo.md', content: '- ship it\n' });
await editor.rollback(second.checkpointId);
say(`rolled back todo.md; the change set is now: ${(await editor.changes()).map((c) => `${c.kind} ${c.path}`).join(', ')}`);
console.log((await sandbox.diff()).split('\n').map((line) => `    ${line}`).join('\n'));
await sandbox.applyToHost();
say(`applied: the project now reads ${JSON.stringify(readFileSync(join(project, 'notes.md'), 'utf8'))}`);
const serverPids = runtime.status().servers.map((s) => s.pid);
await runtime.shutdown();
say(`shutdown: server pids ${serverPids.join(', ')} alive afterwards: ${serverPids.filter((p) => { try { process.kill(p, 0); return true; } catch { return false; } }).length === 0 ? 'none' : 'some'}`);
rmSync(project, { recursive: true, force: true });
