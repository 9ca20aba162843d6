/**
 * The inspector server against an attacker on the same machine or behind a browser: real `ws`
 * clients and HTTP requests on 127.0.0.1. A page of another origin, a DNS-rebinding `Host`, a
 * producer without the run's token, a viewer that sends, an oversized or endless producer, and a
 * secret among what producers send.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createActor, setup } from 'xstate';
import { InspectorServer, type InspectorServerOptions } from '../../src/inspector/inspector-server.js';
import { Redactor } from '../../src/redaction/redactor.js';
import { waitUntil } from '../support/wait.js';

const servers: InspectorServer[] = [];
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  for (const server of servers.splice(0)) await server.close();
});

const PROJECT_PATH = '/home/alice/secret-project';

/** A server fed by one running actor whose context holds a project path and a tool call's arguments. */
async function inspected(options: InspectorServerOptions = {}): Promise<InspectorServer> {
  const server = await InspectorServer.start({ port: 0, ...options });
  servers.push(server);
  const machine = setup({}).createMachine({
    id: 'worker',
    context: { project: PROJECT_PATH, lastCall: { tool: 'files/read_file', arguments: { path: `${PROJECT_PATH}/.env` } } },
    initial: 'idle',
    states: { idle: { on: { go: 'busy' } }, busy: {} },
  });
  createActor(machine, { inspect: server.inspect }).start();
  return server;
}

interface Client {
  readonly socket: WebSocket;
  readonly raw: string[];
  readonly closed: Promise<number>;
}

/** Connects; resolves with the client once open, or with the HTTP status the upgrade was refused with. */
function connect(url: string, options: WebSocket.ClientOptions = {}): Promise<Client | { refused: number }> {
  const socket = new WebSocket(url, options);
  sockets.push(socket);
  const raw: string[] = [];
  socket.on('message', (data) => raw.push(Buffer.concat(Array.isArray(data) ? data : [new Uint8Array(data)]).toString()));
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, raw, closed }));
    socket.once('unexpected-response', (_req, response) => {
      resolve({ refused: response.statusCode ?? 0 });
      response.resume();
    });
    socket.once('error', reject);
  });
}

async function opened(url: string, options: WebSocket.ClientOptions = {}): Promise<Client> {
  const client = await connect(url, options);
  if ('refused' in client) throw new Error(`refused with ${client.refused}`);
  return client;
}

function get(port: number, host: string, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function forgedActor(sessionId: string, name: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: '@xstate.actor',
    name,
    sessionId,
    definition: JSON.stringify({ id: name, initial: 'ERROR', states: { ERROR: {} } }),
    _version: '0.7.2',
    createdAt: Date.now().toString(),
    id: null,
    snapshot: { status: 'active', value: 'ERROR', context: {} },
    ...extra,
  });
}

/**
 * Messages reach a viewer in the order the server sends them: once a marker sent by a legitimate
 * producer arrived, anything relayed before it has arrived too.
 */
async function barrier(server: InspectorServer, viewers: readonly Client[]): Promise<void> {
  const producer = await opened(server.producerUrl);
  const marker = `marker-${randomBytes(6).toString('hex')}`;
  producer.socket.send(forgedActor(marker, marker));
  await waitUntil(() => viewers.every((viewer) => viewer.raw.some((text) => text.includes(marker))), 'the marker in every viewer');
}

describe('who may connect to the inspector', () => {
  it('refuses a WebSocket from a page of another origin, and sends it nothing', async () => {
    const server = await inspected();
    const outcome = await connect(server.wsUrl, { origin: 'http://evil.example' });
    expect(outcome).toEqual({ refused: 403 });
    // The page's own origin is a viewer and gets the tree.
    const own = await opened(server.wsUrl, { origin: `http://127.0.0.1:${server.port}` });
    await waitUntil(() => own.raw.some((text) => text.includes(PROJECT_PATH)), 'the tree in the page');
  });

  it('answers a DNS-rebinding Host with neither the page nor the socket', async () => {
    const server = await inspected();
    const page = await get(server.port, `evil.example:${server.port}`);
    expect([403, 421]).toContain(page.status);
    expect(page.body).not.toContain('<html');
    const bridge = await get(server.port, `evil.example:${server.port}`, '/stately');
    expect([403, 421]).toContain(bridge.status);
    const socket = await connect(server.wsUrl, { headers: { host: `evil.example:${server.port}` } });
    expect(socket).toMatchObject({ refused: expect.any(Number) as number });
    expect([403, 421]).toContain((socket as { refused: number }).refused);
    // The loopback names with the right port are served.
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `[::1]:${server.port}`]) {
      expect((await get(server.port, host)).status).toBe(200);
    }
    expect((await get(server.port, `127.0.0.1:${server.port + 1}`)).status).not.toBe(200);
  });

  it('refuses a producer without the token: a wrong token at the handshake, none at its first message', async () => {
    const server = await inspected();
    const viewer = await opened(server.wsUrl);
    expect(await connect(`${server.wsUrl}/?token=${'0'.repeat(32)}`)).toEqual({ refused: 401 });
    const tokenless = await opened(server.wsUrl);
    tokenless.socket.send(forgedActor('forged-1', 'server:files:acme'));
    expect(await tokenless.closed).toBe(1008);
    await barrier(server, [viewer]);
    expect(viewer.raw.join('\n')).not.toContain('forged-1');
    // The token is never sent to a viewer.
    expect(viewer.raw.join('\n')).not.toContain(server.token);
  });

  it('relays nothing a viewer sends to the other viewers, whatever its origin', async () => {
    const server = await inspected();
    const other = await opened(server.wsUrl);
    const page = await opened(server.wsUrl, { origin: `http://127.0.0.1:${server.port}` });
    page.socket.send(forgedActor('forged-page', 'server:files:acme'));
    const tool = await opened(server.wsUrl);
    tool.socket.send(forgedActor('forged-tool', 'server:files:acme'));
    expect(await page.closed).toBe(1008);
    expect(await tool.closed).toBe(1008);
    await barrier(server, [other]);
    expect(other.raw.join('\n')).not.toMatch(/forged-(page|tool)/);
  });

  it('takes at most maxConnections connections', async () => {
    const server = await inspected({ limits: { maxConnections: 2 } });
    await opened(server.wsUrl);
    await opened(server.wsUrl);
    expect(await connect(server.wsUrl)).toEqual({ refused: 503 });
  });
});

describe('what a producer may send', () => {
  it('closes the connection of a producer whose message is over maxMessageBytes, and relays none of it', async () => {
    const server = await inspected({ limits: { maxMessageBytes: 64 * 1024 } });
    const viewer = await opened(server.wsUrl);
    const producer = await opened(server.producerUrl);
    producer.socket.send(forgedActor('too-big', 'big', { padding: 'x'.repeat(100 * 1024) }));
    expect(await producer.closed).toBe(1009);
    await barrier(server, [viewer]);
    expect(viewer.raw.join('\n')).not.toContain('too-big');
  });

  it('closes a producer past maxProducerBytes in all, and keeps at most maxRetainedBytes of its actors, none once it left', async () => {
    const server = await inspected({ limits: { maxProducerBytes: 200 * 1024, maxRetainedBytes: 32 * 1024 } });
    const producer = await opened(server.producerUrl);
    const padding = 'x'.repeat(8 * 1024);
    for (let i = 0; i < 30; i++) producer.socket.send(forgedActor(`kept-${i}`, `kept-${i}`, { padding }));
    expect(await producer.closed).toBe(1008);
    // Once the producer is gone, nothing of it is kept.
    await waitUntil(() => server.connections === 0, 'the producer to be gone');
    expect(server.retainedBytes).toBe(0);
    const late = await opened(server.wsUrl);
    await barrier(server, [late]);
    expect(late.raw.join('\n')).not.toContain('kept-');
  });

  it('keeps the retained bytes under maxRetainedBytes while a producer is connected', async () => {
    const server = await inspected({ limits: { maxRetainedBytes: 32 * 1024 } });
    const producer = await opened(server.producerUrl);
    const padding = 'x'.repeat(8 * 1024);
    for (let i = 0; i < 12; i++) producer.socket.send(forgedActor(`kept-${i}`, `kept-${i}`, { padding }));
    const late = await opened(server.wsUrl);
    await barrier(server, [late]);
    expect(server.retainedBytes).toBeLessThanOrEqual(32 * 1024);
    // The newest are kept, the oldest forgotten.
    expect(late.raw.join('\n')).toContain('kept-11');
    expect(late.raw.join('\n')).not.toContain('kept-0"');
  });

  it('never lets a secret given to the redactor reach a viewer, early or late', async () => {
    const secret = `sk-${randomBytes(12).toString('hex')}`;
    const redactor = new Redactor();
    redactor.addSecret(secret);
    const server = await inspected({ redactor });
    const early = await opened(`ws://localhost:${server.port}`, { origin: `http://localhost:${server.port}`, family: 4 });
    const producer = await opened(server.producerUrl);
    producer.socket.send(
      forgedActor('with-secret', 'remote:worker', {
        snapshot: { status: 'active', value: 'idle', context: { apiKey: secret, [secret]: 1 } },
      }),
    );
    producer.socket.send(
      JSON.stringify({
        type: '@xstate.event',
        sessionId: 'with-secret',
        event: { type: 'tool.call', arguments: { auth: `Bearer ${secret}` } },
      }),
    );
    producer.socket.send(
      JSON.stringify({
        type: '@xstate.snapshot',
        sessionId: 'with-secret',
        event: { type: 'x' },
        snapshot: { status: 'active', value: 'busy', context: { note: `key=${secret}` } },
      }),
    );
    const late = await opened(server.wsUrl);
    await barrier(server, [early, late]);
    const bytes = [...early.raw, ...late.raw].join('\n');
    expect(bytes).toContain('with-secret');
    expect(bytes).toContain('[redacted]');
    expect(bytes).not.toContain(secret);
  });
});
