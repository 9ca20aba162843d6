/**
 * The server machine decides whether a call may start the server (a lazy start): not while a stop
 * someone asked for is under way, never once the server is retired; an idle stop gives way. Pure
 * machine, fake connections (the protocol is real, the process is not).
 */
import { createActor, waitFor, type Actor } from 'xstate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultServerActors } from '../../../src/server/server-actors.js';
import { validateServerConfig } from '../../../src/config/server-config.js';
import { publicStateOf, refusesLazyStart, serverMachine } from '../../../src/server/server-machine.js';
import { FakeServers } from '../../support/fake-server.js';

let fakes = new FakeServers();
const actors: ServerActor[] = [];
beforeEach(() => {
  fakes = new FakeServers();
});
afterEach(async () => {
  for (const actor of actors.splice(0)) {
    // A fake handshake cut short rejects unheard: let a start finish first.
    await waitFor(actor, (snapshot) => publicStateOf(snapshot) !== 'STARTING');
    actor.send({ type: 'server.stop' });
    await waitFor(actor, (snapshot) => publicStateOf(snapshot) === 'STOPPED');
    actor.stop();
  }
  expect(fakes.liveCount).toBe(0);
});

type ServerActor = Actor<typeof serverMachine>;

function serverActor(idleStopMs = 0): ServerActor {
  const machine = serverMachine.provide({ actors: { ...defaultServerActors, connectServer: fakes.connectServer } });
  const actor = createActor(machine, {
    input: { config: validateServerConfig({ name: 'fake', command: 'fake-server', idleStopMs }) },
  }).start();
  actors.push(actor);
  return actor;
}

async function running(actor: ServerActor): Promise<void> {
  actor.send({ type: 'server.start' });
  await waitFor(actor, (snapshot) => publicStateOf(snapshot) === 'RUNNING');
}

describe('stop requests in the server machine', () => {
  it('records an asked-for stop until stopping is left, and ignores a lazy start meanwhile', async () => {
    const actor = serverActor();
    await running(actor);
    actor.send({ type: 'server.stop' });
    expect(publicStateOf(actor.getSnapshot())).toBe('STOPPING');
    expect(actor.getSnapshot().context.stopRequested).toBe(true);
    expect(refusesLazyStart(actor.getSnapshot().context)).toBe(true);
    actor.send({ type: 'server.start', explicit: false });
    expect(actor.getSnapshot().context.afterStop).toBe('stopped');
    const stopped = await waitFor(actor, (snapshot) => publicStateOf(snapshot) !== 'STOPPING');
    expect(publicStateOf(stopped)).toBe('STOPPED');
    expect(stopped.context.stopRequested).toBe(false);
    // Once stopped, a call may start it again.
    actor.send({ type: 'server.start', explicit: false });
    expect(publicStateOf(actor.getSnapshot())).toBe('STARTING');
  });

  it('lets an explicit start follow an asked-for stop, and clears the request when stopping is left', async () => {
    const actor = serverActor();
    await running(actor);
    actor.send({ type: 'server.stop' });
    actor.send({ type: 'server.start' });
    expect(actor.getSnapshot().context.afterStop).toBe('start');
    const next = await waitFor(actor, (snapshot) => publicStateOf(snapshot) !== 'STOPPING');
    expect(publicStateOf(next)).toBe('STARTING');
    expect(next.context.stopRequested).toBe(false);
  });

  it('gives way to a call during an idle stop', async () => {
    const actor = serverActor(50);
    await running(actor);
    await waitFor(actor, (snapshot) => publicStateOf(snapshot) === 'STOPPING');
    expect(actor.getSnapshot().context.stopRequested).toBe(false);
    actor.send({ type: 'server.start', explicit: false });
    expect(actor.getSnapshot().context.afterStop).toBe('start');
  });

  it('never starts lazily once retired, from any state; an explicit start still may', async () => {
    const idle = serverActor();
    idle.send({ type: 'server.stop', retire: true });
    expect(idle.getSnapshot().context.retired).toBe(true);
    idle.send({ type: 'server.start', explicit: false });
    expect(publicStateOf(idle.getSnapshot())).toBe('STOPPED');

    const busy = serverActor();
    await running(busy);
    busy.send({ type: 'server.stop', retire: true });
    await waitFor(busy, (snapshot) => publicStateOf(snapshot) === 'STOPPED');
    busy.send({ type: 'server.start', explicit: false });
    expect(publicStateOf(busy.getSnapshot())).toBe('STOPPED');
    busy.send({ type: 'server.start' });
    expect(publicStateOf(busy.getSnapshot())).toBe('STARTING');
  });
});
