/**
 * The supervision tree in the Stately inspector, with real servers: `createRuntime({ inspect })`
 * runs the runtime's inspector server; `ws` clients stand in for the inspector page, and
 * `@statelyai/inspect`'s own `createWebSocketInspector` is the yardstick for what must be sent.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebSocketInspector } from '@statelyai/inspect';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime/create-runtime.js';
import { fixtureServerPath } from '../../src/testing/fixture.js';
import { connectViewer, waitForActors, type ReceivedMessage, type Viewer } from '../support/inspector-viewer.js';
import { waitUntil } from '../support/wait.js';

const pidLog = process.env.MCP_ACTORS_PID_LOG ? { MCP_ACTORS_PID_LOG: process.env.MCP_ACTORS_PID_LOG } : {};

function config(extra: { env?: Record<string, string>; remote?: { url: string; headers: Record<string, string> } } = {}) {
  const fixture = { command: process.execPath, args: [fixtureServerPath()], env: { ...pidLog, ...extra.env } };
  return {
    servers: {
      files: fixture,
      notes: fixture,
      ...(extra.remote ? { remote: { ...extra.remote, max_restarts: 0, start_timeout_ms: 5_000 } } : {}),
    },
    skills: { work: { mcp_servers: ['files', 'notes', ...(extra.remote ? ['remote'] : [])] } },
    actors: { triager: { skills: ['work'], permissions: { execute: 'allow' } } },
  };
}

const runtimes: Runtime[] = [];
const viewers: Viewer[] = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.shutdown();
  for (const viewer of viewers.splice(0)) viewer.close();
});

async function viewerOf(runtime: Runtime): Promise<Viewer> {
  const viewer = await connectViewer(runtime.inspector!.wsUrl);
  viewers.push(viewer);
  return viewer;
}

async function inspectedRuntime(cfg: RuntimeOptions['config'], lines: string[] = []): Promise<Runtime> {
  const runtime = await createRuntime({ config: cfg, inspect: { port: 0, print: (line) => lines.push(line) }, callTimeoutMs: 10_000 });
  runtimes.push(runtime);
  return runtime;
}

async function fourCalls(runtime: Runtime) {
  const triager = await runtime.activate('triager', { tenant: 'acme' });
  for (const [tool, message] of [
    ['files/echo', 'a'],
    ['notes/echo', 'b'],
    ['files/echo', 'c'],
    ['notes/echo', 'd'],
  ] as const) {
    expect((await triager.call(tool, { message })).status).toBe('committed');
  }
  return triager;
}

const TREE = ['runtime', 'actor:triager:acme', 'servers:acme', 'server:files:acme', 'server:notes:acme'];
const CALLS = [
  'call:triager:acme#1 files/echo',
  'call:triager:acme#2 notes/echo',
  'call:triager:acme#3 files/echo',
  'call:triager:acme#4 notes/echo',
];

describe('the inspector server', () => {
  it("prints its URL once: the runtime's own page on 127.0.0.1, and the bridge that embeds the Stately inspector", async () => {
    const lines: string[] = [];
    const runtime = await inspectedRuntime(config(), lines);
    const url = `http://127.0.0.1:${runtime.inspector!.port}`;
    expect(lines).toEqual([`Inspector: ${url} (the Stately inspector: ${url}/stately)`]);
    const page = await (await fetch(url)).text();
    // The runtime's own page loads nothing from elsewhere; it only links to the bridge.
    expect(page).not.toMatch(/<(script|link|img|iframe)[^>]+(src|href)="https?:/);
    expect(page).toContain('href="/stately"');
    const bridge = await (await fetch(`${url}/stately`)).text();
    expect(bridge).toContain('<iframe id="inspector" title="Stately inspector" src="https://stately.ai/inspect">');
  });

  it("sends the whole tree with role labels: runtime, actor, the tenant's server supervisor, two servers, one actor per call", async () => {
    const runtime = await inspectedRuntime(config());
    const viewer = await viewerOf(runtime);
    await fourCalls(runtime);
    await waitForActors(viewer, [...TREE, ...CALLS]);
    const announced = viewer.messages.filter((m) => m.type === '@xstate.actor');
    // No step actors (promise and callback actors): their work shows as the call's states.
    expect(announced.map((m) => m.name).sort()).toEqual([...TREE, ...CALLS].sort());
    const byName = new Map(announced.map((m) => [m.name, m]));
    const idOf = (name: string): string => byName.get(name)!.sessionId;
    expect(byName.get('runtime')!.parentId).toBeUndefined();
    expect(byName.get('actor:triager:acme')!.parentId).toBe(idOf('runtime'));
    for (const name of CALLS) expect(byName.get(name)!.parentId).toBe(idOf('actor:triager:acme'));
    // Shared by reference among the actors of one tenant, server actors belong to the tenant's supervisor.
    expect(byName.get('servers:acme')!.parentId).toBe(idOf('runtime'));
    for (const name of ['server:files:acme', 'server:notes:acme']) expect(byName.get(name)!.parentId).toBe(idOf('servers:acme'));
    // Each call's steps are states of its machine.
    const callId = idOf(CALLS[0]!);
    const states = viewer.messages
      .filter((m) => m.type === '@xstate.snapshot' && m.sessionId === callId)
      .map((m) => JSON.stringify(m.snapshot?.value));
    expect(states.join(' ')).toContain('invoking');
  });

  it('gives a viewer that connects late the live tree as it is now', async () => {
    const runtime = await inspectedRuntime(config());
    await fourCalls(runtime);
    const late = await viewerOf(runtime);
    await waitForActors(late, TREE);
    const announced = late.messages.filter((m) => m.type === '@xstate.actor');
    // The finished calls are not live any more; every live actor comes with its current state.
    expect(announced.map((m) => m.name).sort()).toEqual([...TREE].sort());
    expect(announced.find((m) => m.name === 'actor:triager:acme')!.snapshot).toMatchObject({ status: 'active', value: 'active' });
    expect(announced.find((m) => m.name === 'server:files:acme')!.snapshot).toMatchObject({ status: 'active', value: { running: 'idle' } });
  });

  it('sends, field for field, what @statelyai/inspect sends for the same actors', async () => {
    // The yardstick: the package's own WebSocket inspector, sending to a plain ws server of the test.
    const yardstick = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => yardstick.once('listening', resolve));
    const theirs: ReceivedMessage[] = [];
    yardstick.on('connection', (socket) =>
      socket.on('message', (data) =>
        theirs.push(JSON.parse(Buffer.concat(Array.isArray(data) ? data : [new Uint8Array(data)]).toString()) as ReceivedMessage),
      ),
    );
    const packageInspector = createWebSocketInspector({ url: `ws://127.0.0.1:${(yardstick.address() as AddressInfo).port}` });
    try {
      const runtime = await inspectedRuntime(config());
      const viewer = await viewerOf(runtime);
      await waitForActors(viewer, ['runtime']);
      // From here on both see the same inspection events.
      const from = viewer.messages.length;
      runtime.actor.system.inspect(packageInspector.inspect);
      await fourCalls(runtime);
      await waitForActors(viewer, CALLS);
      await waitUntil(
        () => theirs.filter((m) => m.type === '@xstate.actor' && CALLS.includes(String(m.name))).length === 4,
        'the package to send the calls',
      );
      const sentBy = (): Set<string> => new Set(viewer.messages.slice(from).map((m) => m.sessionId));
      const ofOurs = (list: readonly ReceivedMessage[]): ReceivedMessage[] => list.filter((m) => sentBy().has(m.sessionId));
      // Both streams are asynchronous: wait until they have as many messages for our actors.
      await waitUntil(() => ofOurs(theirs).length === viewer.messages.length - from, 'both to have sent the same number of messages');
      const ours = viewer.messages.slice(from);
      // An @xstate.actor message carries the actor's snapshot as it is when the message is made, one
      // turn after the actor was created (the package's rule, and ours): the two may see different
      // moments of it, so there only the snapshot's fields are compared; every other field, and
      // every event and snapshot message, must be equal.
      // A server's snapshot holds its live SDK connection, whose request counter moves on while the
      // two inspectors serialize at slightly different moments: that one counter is not compared.
      const steady = (value: unknown): unknown =>
        JSON.parse(JSON.stringify(value, (key, inner: unknown) => (key === '_requestMessageId' ? undefined : inner))) as unknown;
      const comparable = (raw: ReceivedMessage): Record<string, unknown> => {
        const m = steady(raw) as ReceivedMessage;
        const { createdAt: _createdAt, ...rest } = m;
        if (m.type !== '@xstate.actor') return rest;
        // A short-lived call may be done by the time one of the two takes its snapshot: `output` and
        // `error` appear only then, so the fields compared are the ones every moment has.
        return {
          ...rest,
          snapshot: Object.keys(m.snapshot ?? {})
            .filter((key) => key !== 'output' && key !== 'error')
            .sort(),
        };
      };
      for (const type of ['@xstate.event', '@xstate.snapshot', '@xstate.actor'] as const) {
        const mine = ours.filter((m) => m.type === type);
        // The package sends secrets as they are; ours are redacted (here: the pid log path in env).
        const package_ = runtime.redactor.redact(ofOurs(theirs).filter((m) => m.type === type));
        expect(mine.length).toBeGreaterThan(0);
        expect(mine.map(comparable)).toEqual(package_.map(comparable));
      }
    } finally {
      packageInspector.stop();
      await new Promise((resolve) => yardstick.close(resolve));
    }
  });
});

describe('secrets and the inspector', () => {
  const TOKEN = `token-${randomBytes(12).toString('hex')}`;
  const HEADER = `header-${randomBytes(12).toString('hex')}`;
  let echo: Server;
  let echoUrl: string;
  beforeAll(async () => {
    echo = createServer((req, res) => {
      res.writeHead(500);
      res.end(`you sent ${String(req.headers.authorization)}`);
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/mcp`;
  });
  afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

  it('a server env value and a header value never appear in any byte a viewer receives, early or late', async () => {
    const runtime = await inspectedRuntime(
      config({ env: { TOKEN }, remote: { url: echoUrl, headers: { Authorization: `Bearer ${HEADER}` } } }),
    );
    const early = await viewerOf(runtime);
    // A producer of the package's own, relayed by the server: redacted as well.
    const producer = createWebSocketInspector({ url: runtime.inspector!.producerUrl });
    runtime.actor.system.inspect(producer.inspect);
    const triager = await runtime.activate('triager', { tenant: 'acme' });
    expect(triager.activation?.unavailable.map((u) => u.server)).toEqual(['remote']);
    const env = await triager.call('files/env', { name: 'TOKEN' });
    expect(env.result?.content[0]).toMatchObject({ text: TOKEN }); // the agent gets its answer...
    await triager.call('files/stderr', { line: `my token is ${TOKEN}` });
    const late = await viewerOf(runtime);
    await waitForActors(late, TREE);
    await waitForActors(early, ['call:triager:acme#2 files/stderr']);
    producer.stop();
    const bytes = [...early.raw, ...late.raw].join('\n');
    expect(bytes).toContain('[redacted]'); // ...while the viewers got the redacted snapshots
    expect(bytes).not.toContain(TOKEN);
    expect(bytes).not.toContain(HEADER);
  });
});

describe('tool results and the Stately bridge', () => {
  async function callWithResult(shareToolResults: boolean | undefined) {
    const runtime = await createRuntime({
      config: config(),
      inspect: { port: 0, print: false, ...(shareToolResults !== undefined ? { shareToolResults } : {}) },
      callTimeoutMs: 10_000,
    });
    runtimes.push(runtime);
    const origin = { origin: `http://127.0.0.1:${runtime.inspector!.port}` };
    const own = await connectViewer(runtime.inspector!.wsUrl, origin);
    const bridge = await connectViewer(`${runtime.inspector!.wsUrl}/?view=stately`, origin);
    viewers.push(own, bridge);
    // A result that is in no argument: the sum of two random numbers (as text and as structured content).
    const a = 1_000_000_000 + randomBytes(3).readUIntBE(0, 3);
    const b = 2_000_000_000 + randomBytes(3).readUIntBE(0, 3);
    const contents = String(a + b);
    const triager = await runtime.activate('triager', { tenant: 'acme' });
    expect((await triager.call('files/add', { a, b })).result?.content[0]).toMatchObject({ text: contents });
    // The call's last snapshot (done, with its output) is the last message about it: wait for it in both.
    const done = (viewer: Viewer): boolean => {
      const call = viewer.messages.find((m) => m.type === '@xstate.actor' && m.name === 'call:triager:acme#1 files/add');
      return (
        call !== undefined &&
        viewer.messages.some((m) => m.type === '@xstate.snapshot' && m.sessionId === call.sessionId && m.snapshot?.status === 'done')
      );
    };
    await waitUntil(() => done(own) && done(bridge), 'the call done in both viewers');
    return { own: own.raw.join('\n'), bridge: bridge.raw.join('\n'), contents };
  }

  it('withholds tool results (text and structured) from the socket the Stately bridge uses, and only from it, by default', async () => {
    const { own, bridge, contents } = await callWithResult(undefined);
    expect(own).toContain(contents);
    expect(bridge).not.toContain(contents);
    expect(bridge).toContain('[tool result withheld from the Stately inspector]');
  });

  it('lets the Stately bridge see tool results when the host opts in (shareToolResults)', async () => {
    const { bridge, contents } = await callWithResult(true);
    expect(bridge).toContain(contents);
  });
});
