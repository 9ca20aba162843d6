/**
 * `agents demo` (and `npm start`): a narrated tour that ends by itself in well under a minute and
 * leaves no process behind — supervision (lazy start, a crash and its restart, a crash loop that
 * ends in ERROR, idle stop), then the runtime: an actor in a sandbox of a throwaway git project,
 * two tenants, an approval, a path refused, a rollback and the diff applied.
 *
 * It needs nothing but the package itself: the supervised servers are the fixture server shipped
 * in `mcp-actors/testing`; the sandbox part uses the MCP reference filesystem server when it is
 * installed (it is a devDependency of this repository) and says how to get it when it is not.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { McpClient } from '../client/mcp-client.js';
import { McpRegistry } from '../client/mcp-registry.js';
import { isMcpActorsError, messageOf } from '../errors/index.js';
import { defineServer } from '../domain/define-server.js';
import { defineTool } from '../domain/define-tool.js';
import { createRuntime } from '../runtime/create-runtime.js';
import { fixtureServerConfig } from '../testing/fixture.js';
import { referenceServerPath } from '../testing/reference-servers.js';
import { ExitCode, type CliIo } from './cli-io.js';
import type { CommandContext } from './command-context.js';
import { paint } from './paint.js';
import { UsageError } from './usage-error.js';

type Say = (text: string) => void;

export async function demoCommand(context: CommandContext): Promise<number> {
  const { io } = context;
  const colour = paint(io);
  const heading = (text: string): void => void io.stdout.write(`\n${colour.bold(text)}\n`);
  const say: Say = (text) => void io.stdout.write(`  ${text}\n`);
  const inspectFor = inspectForValue(context.flags.options['inspect-for']);
  const hold: Hold | undefined = context.flags.inspect || inspectFor !== undefined ? { io, ms: inspectFor } : undefined;
  const started = Date.now();
  await supervision(heading, say, (text) => colour.state(text));
  const signalled = await runtimeTour(heading, say, hold);
  heading(`Done in ${((Date.now() - started) / 1000).toFixed(1)} s; no process left. Next: README.md, "Embedding".`);
  return signalled ?? ExitCode.OK;
}

/** With the inspector on: how the demo keeps serving it once the tour is done (until Ctrl+C, or for `ms`). */
interface Hold {
  readonly io: CliIo;
  readonly ms: number | undefined;
}

function inspectForValue(value: string | boolean | readonly string[] | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(ms))
    throw new UsageError(`--inspect-for must be a whole number of milliseconds, got "${String(value)}"; write --inspect-for 60000`);
  return ms;
}

/** Resolves after `hold.ms`, or on Ctrl+C / SIGTERM (then with its exit code). */
function held(hold: Hold, say: Say): Promise<number | undefined> {
  say(
    hold.ms === undefined
      ? 'the inspector keeps serving the live tree: Ctrl+C to end the demo'
      : `the inspector keeps serving the live tree for ${hold.ms} ms (Ctrl+C ends it sooner)`,
  );
  return new Promise((resolve) => {
    const timer = hold.ms === undefined ? undefined : setTimeout(() => finish(undefined), hold.ms);
    const stop = hold.io.onSignal((signal) => finish(signal === 'SIGINT' ? ExitCode.SIGINT : ExitCode.SIGTERM));
    function finish(code: number | undefined): void {
      if (timer) clearTimeout(timer);
      stop();
      resolve(code);
    }
  });
}

function textOf(result: unknown): string {
  const content = (result as { content?: { text?: unknown }[] } | undefined)?.content;
  const text = content?.[0]?.text;
  return typeof text === 'string' ? text : JSON.stringify(result);
}

function until(client: McpClient, state: string): Promise<unknown> {
  return firstValueFrom(
    client.state$.pipe(
      filter((value) => value === state),
      timeout(20_000),
    ),
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function supervision(heading: (text: string) => void, say: Say, state: (text: string) => string): Promise<void> {
  const registry = new McpRegistry();
  const fixture = registry.register(new McpClient({ ...fixtureServerConfig({ name: 'fixture' }), idleStopMs: 1_500 }));
  const flaky = registry.register(
    new McpClient({ ...fixtureServerConfig({ name: 'flaky', exitOnStart: 3 }), maxRestarts: 2, backoff: { initialMs: 50 } }),
  );
  for (const client of [fixture, flaky]) client.state$.subscribe((value) => say(`[${client.name}] ${state(value)}`));
  try {
    heading('1. Lazy start: the first call starts the server.');
    say(`fixture echo: ${textOf(await fixture.callTool('echo', { message: 'hello from mcp-actors' }))}`);

    heading('2. A crash: SIGKILL the server; the supervisor restarts it and the next call works.');
    const pid = fixture.status().pid;
    if (pid !== undefined) process.kill(pid, 'SIGKILL');
    say(`killed pid ${pid}`);
    await until(fixture, 'STARTING');
    await until(fixture, 'RUNNING');
    say(`restarted as pid ${fixture.status().pid} after ${fixture.status().restarts} restart(s)`);
    say(`fixture echo: ${textOf(await fixture.callTool('echo', { message: 'after the crash' }))}`);

    heading('3. A crash loop: a server that exits on start goes to ERROR after max_restarts.');
    try {
      await flaky.start();
    } catch (error) {
      say(`${isMcpActorsError(error) ? error.code : 'error'}: ${messageOf(error).split('\n')[0]}`);
    }

    heading('4. Idle stop: the fixture stops itself after 1.5 s without calls.');
    await until(fixture, 'STOPPED');
    say(`the next call starts it again: ${textOf(await fixture.callTool('echo', { message: 'woken' }))}`);

    heading('5. Shutdown: every server stopped, no process left.');
    const pids = [fixture.status().pid].filter((p): p is number => p !== undefined);
    await registry[Symbol.asyncDispose]();
    const left = pids.filter(alive);
    say(`pids ${pids.join(', ')} alive afterwards: ${left.length === 0 ? 'none' : left.join(', ')}`);
  } finally {
    await registry[Symbol.asyncDispose]();
  }
}

function filesystemServer(): string | undefined {
  try {
    return referenceServerPath('filesystem');
  } catch {
    return undefined;
  }
}

async function runtimeTour(heading: (text: string) => void, say: Say, hold: Hold | undefined): Promise<number | undefined> {
  heading('6. The runtime: an actor in a sandbox of a throwaway project, two tenants, a rollback.');
  const filesystem = filesystemServer();
  if (filesystem === undefined) {
    say('(skipped: npm install @modelcontextprotocol/server-filesystem to see a sandboxed filesystem server)');
    return undefined;
  }
  const project = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-actors-demo-')));
  const person = {
    GIT_AUTHOR_NAME: 'demo',
    GIT_AUTHOR_EMAIL: 'demo@example.com',
    GIT_COMMITTER_NAME: 'demo',
    GIT_COMMITTER_EMAIL: 'demo@example.com',
  };
  const git = (...args: string[]): void =>
    void execFileSync('git', args, { cwd: project, env: { ...process.env, ...person }, stdio: 'ignore' });
  git('init', '-q');
  writeFileSync(join(project, 'notes.md'), '# notes\n');
  git('add', '-A');
  git('commit', '-qm', 'start');

  const clock = defineServer({
    name: 'clock',
    tools: [
      defineTool({
        name: 'now',
        domain: 'clock',
        category: 'read',
        description: 'The time, for the tenant',
        input: { type: 'object' },
        call: (_params, ctx) => ({ tenant: ctx.tenant, at: new Date(0).toISOString() }),
      }),
    ],
  });
  const runtime = await createRuntime({
    config: {
      servers: { files: { command: process.execPath, args: [filesystem, '${SANDBOX_ROOT}'] } },
      skills: { editing: { mcp_servers: ['files', 'clock'] } },
      actors: { editor: { skills: ['editing'], permissions: { execute: 'ask' } } },
    },
    domainServers: [clock],
    ...(hold ? { inspect: { print: (line: string) => say(`${line} (the runtime's tree, live)`) } } : {}),
    approve: ({ tool, destructive }) => {
      say(`approval asked for ${tool.name} (destructive: ${destructive}) — granted`);
      return true;
    },
  });
  try {
    runtime.events$.subscribe((event) => {
      if (event.type === 'call.ended') say(`audit: ${event.actor}@${event.tenant} ${event.tool} → ${event.status}`);
    });
    const sandbox = await runtime.createSandbox(project);
    const editor = await runtime.activate('editor', { tenant: 'acme', sandbox });
    say(
      `tools: ${editor
        .tools()
        .map((tool) => `${tool.name} (${tool.category})`)
        .slice(0, 4)
        .join(', ')}, …`,
    );
    say(`in-process call: ${textOf((await editor.call('clock/now')).result)}`);
    const write = await editor.call('files/write_file', { path: 'notes.md', content: '# notes\n\nwritten in the sandbox\n' });
    say(`write_file → ${write.status}; the project still reads ${JSON.stringify(readFileSync(join(project, 'notes.md'), 'utf8'))}`);
    const escape = await editor.call('files/write_file', { path: '../outside.txt', content: 'x' });
    say(`a path out of the sandbox → ${escape.status} (${escape.error?.code})`);
    const other = await runtime.activate('editor', { tenant: 'globex', sandbox });
    await other.call('clock/now');
    say(
      `two tenants, two filesystem servers: ${runtime
        .status()
        .servers.map((s) => `${s.server}@${s.tenant} pid ${s.pid}`)
        .join(', ')}`,
    );
    const second = await editor.call('files/write_file', { path: 'todo.md', content: '- ship it\n' });
    if (second.checkpointId !== undefined) await editor.rollback(second.checkpointId);
    say(`rolled back todo.md; the change set is now: ${(await editor.changes()).map((c) => `${c.kind} ${c.path}`).join(', ')}`);
    await sandbox.applyToHost();
    say(`applied: the project now reads ${JSON.stringify(readFileSync(join(project, 'notes.md'), 'utf8'))}`);
    const signalled = hold ? await held(hold, say) : undefined;
    const serverPids = runtime
      .status()
      .servers.map((s) => s.pid)
      .filter((p): p is number => p !== undefined);
    await runtime.shutdown();
    say(`shutdown: server pids ${serverPids.join(', ')} alive afterwards: ${serverPids.some(alive) ? 'some' : 'none'}`);
    return signalled;
  } finally {
    await runtime.shutdown();
    rmSync(project, { recursive: true, force: true });
  }
}
