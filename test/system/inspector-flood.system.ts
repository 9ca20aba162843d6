/**
 * The inspector server under a flood: a producer sends 100 MB of forged actors. A viewer that does
 * not read is dropped instead of buffered for, and once every viewer and the producer left, the
 * heap is back near where it was (the old server kept 218-300 MB).
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { InspectorServer } from '../../src/inspector/inspector-server.js';
import { waitUntil } from '../support/wait.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const MIB = 1024 * 1024;
const servers: InspectorServer[] = [];
const sockets: (WebSocket | Socket)[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) {
    if (socket instanceof WebSocket) socket.terminate();
    else socket.destroy();
  }
  for (const server of servers.splice(0)) await server.close();
});

function forged(i: number, padding: string): string {
  return JSON.stringify({
    type: '@xstate.actor',
    name: `forged-${i}`,
    sessionId: `forged-${i}`,
    definition: '{}',
    snapshot: { status: 'active', value: 'ERROR', context: { padding } },
  });
}

async function open(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url);
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return socket;
}

/** Sends 100 messages of about 1 MiB each, waiting for each to leave the client. */
async function flood(producer: WebSocket): Promise<void> {
  const padding = 'x'.repeat(MIB - 1024);
  for (let i = 0; i < 100; i++)
    await new Promise<void>((resolve, reject) => producer.send(forged(i, padding), (error) => (error ? reject(error) : resolve())));
}

describe('the inspector server under a flood', () => {
  it('drops a viewer that does not read instead of buffering for it', async () => {
    const server = await InspectorServer.start({ port: 0, limits: { maxBufferedBytes: MIB } });
    servers.push(server);
    // A viewer that completes the handshake and then never reads a byte.
    const slow = connect(server.port, '127.0.0.1');
    sockets.push(slow);
    slow.write(
      `GET / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    slow.pause();
    await waitUntil(() => server.connections === 1, 'the slow viewer to be connected');
    const producer = await open(server.producerUrl);
    await flood(producer);
    await waitUntil(() => server.connections === 1, 'the slow viewer to be dropped (only the producer left)');
  });

  it('keeps at most maxRetainedBytes of 100 MB of forged actors, and gives the heap back once everyone left', async () => {
    const server = await InspectorServer.start({ port: 0 });
    servers.push(server);
    gc();
    const before = process.memoryUsage().heapUsed;
    const viewer = await open(server.wsUrl);
    let received = 0;
    viewer.on('message', () => received++);
    const producer = await open(server.producerUrl);
    await flood(producer);
    await waitUntil(() => received === 100, 'the viewer to receive all 100', 60_000);
    expect(server.retainedBytes).toBeLessThanOrEqual(server.limits.maxRetainedBytes);
    producer.close();
    viewer.close();
    await waitUntil(() => server.connections === 0, 'everyone to leave');
    expect(server.retainedBytes).toBe(0);
    gc();
    const after = process.memoryUsage().heapUsed;
    expect(after - before).toBeLessThan(32 * MIB);
  });
});
