/**
 * Acquiring a server is an event answered by an event: the runtime's machine forwards a request to
 * the supervisor of its tenant and sandbox (spawning it first), and the supervisor answers the
 * requester (`replyTo`) with `server.acquired` and the server actor's ref — nobody reads a snapshot
 * to learn what a send did. Releases are answered the same way, the last one with `last: true`;
 * once the stopped server is retired, the empty supervisor is stopped too.
 */
import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise, type ActorRefFrom, type AnyEventObject } from 'xstate';
import { ChildSpawn } from '../../../src/runtime/child-spawn.js';
import { runtimeMachine } from '../../../src/runtime/runtime-machine.js';
import type { serverSupervisor, SupervisorReply } from '../../../src/runtime/server-supervisor.js';

/** A requester that only records what it is told. */
function requester() {
  const told: AnyEventObject[] = [];
  const actor = createActor(fromCallback<AnyEventObject>(({ receive }) => receive((event) => told.push(event))));
  actor.start();
  return { actor, told };
}

const server = createMachine({ id: 'fakeServer', initial: 'running', states: { running: {} } });
const supervisor = { id: 'servers:acme', input: { tenant: 'acme', sandboxId: undefined } };

function runtime() {
  const actor = createActor(runtimeMachine.provide({ actors: { shutDown: fromPromise(() => Promise.resolve()) } }));
  actor.start();
  return actor;
}

type Runtime = ReturnType<typeof runtime>;

/** A supervisor of the runtime's, by id. */
function supervisorOf(rt: Runtime, id: string): ActorRefFrom<typeof serverSupervisor> | undefined {
  return rt.getSnapshot().context.supervisors[id]?.ref as ActorRefFrom<typeof serverSupervisor> | undefined;
}

/** The ids of a supervisor's children (the server actors it spawned). */
function childrenOf(rt: Runtime, id: string): string[] {
  return Object.keys(supervisorOf(rt, id)?.getSnapshot().children ?? {}).sort();
}

/** The runtime's children. */
function runtimeChildren(rt: Runtime): string[] {
  return Object.keys(rt.getSnapshot().children).sort();
}

describe('the server supervisor', () => {
  it('answers an acquire with server.acquired and the ref of the server actor it spawned under itself', () => {
    const rt = runtime();
    const a = requester();
    const b = requester();
    rt.send({
      type: 'server.acquire',
      key: 'files',
      holder: 'actor:a',
      replyTo: a.actor,
      supervisor,
      spawn: new ChildSpawn(server, 'server:files:acme', 'server:files:acme', {}),
    });
    const [first] = a.told as SupervisorReply[];
    expect(first).toMatchObject({ type: 'server.acquired', key: 'files', holders: 1 });
    const ref = first?.type === 'server.acquired' ? first.ref : undefined;
    // The server actor is the supervisor's child, and the supervisor the runtime's.
    expect(runtimeChildren(rt)).toEqual(['servers:acme']);
    expect(childrenOf(rt, 'servers:acme')).toEqual(['server:files:acme']);
    expect(supervisorOf(rt, 'servers:acme')?.getSnapshot().context.servers.files?.ref).toBe(ref);
    // A second holder is told the same ref; nothing new is spawned.
    rt.send({ type: 'server.acquire', key: 'files', holder: 'actor:b', replyTo: b.actor, supervisor });
    expect(b.told).toEqual([{ type: 'server.acquired', key: 'files', ref, holders: 2 }]);
    expect(childrenOf(rt, 'servers:acme')).toEqual(['server:files:acme']);
  });

  it('refuses an acquire of a server nobody holds when it is not told how to spawn it', () => {
    const rt = runtime();
    const a = requester();
    rt.send({ type: 'server.acquire', key: 'files', holder: 'actor:a', replyTo: a.actor, supervisor });
    expect(a.told).toEqual([{ type: 'server.refused', key: 'files' }]);
  });

  it('answers releases, the last with last: true; the retired server and then the empty supervisor stop', () => {
    const rt = runtime();
    const a = requester();
    const b = requester();
    const spawn = new ChildSpawn(server, 'server:files:acme', 'server:files:acme', {});
    rt.send({ type: 'server.acquire', key: 'files', holder: 'actor:a', replyTo: a.actor, supervisor, spawn });
    rt.send({ type: 'server.acquire', key: 'files', holder: 'actor:b', replyTo: b.actor, supervisor });
    const ref = (a.told[0] as Extract<SupervisorReply, { type: 'server.acquired' }>).ref;
    rt.send({ type: 'server.release', key: 'files', holder: 'actor:a', replyTo: a.actor, supervisor: supervisor.id });
    expect(a.told.at(-1)).toEqual({ type: 'server.released', key: 'files', last: false, holders: 1 });
    rt.send({ type: 'server.release', key: 'files', holder: 'actor:b', replyTo: b.actor, supervisor: supervisor.id });
    expect(b.told.at(-1)).toEqual({ type: 'server.released', key: 'files', last: true, holders: 0 });
    // Not stopped yet: its client closes the process first, then retires it.
    expect((ref.getSnapshot() as { status: string }).status).toBe('active');
    rt.send({ type: 'server.retire', supervisor: supervisor.id, actor: ref });
    expect((ref.getSnapshot() as { status: string }).status).toBe('stopped');
    expect(runtimeChildren(rt)).toEqual([]);
    expect(rt.getSnapshot().context.supervisors).toEqual({});
  });

  it('keeps one supervisor per tenant and sandbox', () => {
    const rt = runtime();
    const a = requester();
    const spawn = (id: string) => new ChildSpawn(server, id, id, {});
    rt.send({
      type: 'server.acquire',
      key: 'files/acme',
      holder: 'actor:a',
      replyTo: a.actor,
      supervisor,
      spawn: spawn('server:files:acme'),
    });
    const globex = { id: 'servers:globex', input: { tenant: 'globex', sandboxId: undefined } };
    rt.send({
      type: 'server.acquire',
      key: 'files/globex',
      holder: 'actor:a',
      replyTo: a.actor,
      supervisor: globex,
      spawn: spawn('server:files:globex'),
    });
    const sandboxed = { id: 'servers:acme:1234abcd', input: { tenant: 'acme', sandboxId: '1234abcd' } };
    rt.send({
      type: 'server.acquire',
      key: 'files/acme/sb',
      holder: 'actor:a',
      replyTo: a.actor,
      supervisor: sandboxed,
      spawn: spawn('server:files:acme:1234abcd'),
    });
    expect(runtimeChildren(rt)).toEqual(['servers:acme', 'servers:acme:1234abcd', 'servers:globex']);
    expect(childrenOf(rt, 'servers:acme:1234abcd')).toEqual(['server:files:acme:1234abcd']);
  });
});
