/**
 * The tree a person sees in the inspector is the tree that decides. From the inspection events
 * alone (what `createRuntime({ inspect })` gives an observer), with a real fixture server over
 * stdio: each agent actor's snapshot names the servers it holds, and those are children of the
 * server supervisor of its tenant (`servers:<tenant>`), itself a child of the runtime.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { createRuntime, type Runtime } from '../../src/runtime/create-runtime.js';
import { fixtureServerPath } from '../../src/testing/fixture.js';
import { expectAllGone } from '../support/processes.js';

const fixture = { command: process.execPath, args: [fixtureServerPath()] };
const config = {
  servers: { files: fixture, notes: fixture },
  skills: { filing: { mcp_servers: ['files'] }, noting: { mcp_servers: ['notes'] } },
  actors: {
    filer: { skills: ['filing'], permissions: { execute: 'allow' } },
    keeper: { skills: ['filing', 'noting'], permissions: { execute: 'allow' } },
  },
} as const;

const runtimes: Runtime[] = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.shutdown();
});

/** What an observer can tell from inspection events: names, parents, last snapshots, who is still live. */
function treeOf(events: readonly InspectionEvent[]) {
  const name = new Map<string, string>();
  const parent = new Map<string, string>();
  const last = new Map<string, { status: string; context?: unknown }>();
  for (const event of events) {
    const session = event.actorRef.sessionId;
    if (event.type === '@xstate.actor') name.set(session, (event.actorRef as AnyActorRef).id);
    // Who started an actor: the source of the `xstate.init` event XState sends it as it starts.
    if (event.type === '@xstate.event' && event.event.type === 'xstate.init' && event.sourceRef)
      parent.set(session, event.sourceRef.sessionId);
    if (event.type === '@xstate.snapshot') last.set(session, event.snapshot);
  }
  const live = [...name.keys()].filter((session) => last.get(session)?.status === 'active');
  const sessionOf = (id: string): string | undefined => live.find((session) => name.get(session) === id);
  return {
    parentOf: (id: string): string | undefined => {
      const session = sessionOf(id);
      const up = session === undefined ? undefined : parent.get(session);
      return up === undefined ? undefined : name.get(up);
    },
    childrenOf: (id: string): string[] =>
      live
        .filter((session) => parent.get(session) === sessionOf(id))
        .map((session) => name.get(session) ?? '?')
        .sort(),
    serversOf: (id: string): string[] => {
      const session = sessionOf(id);
      const context = session === undefined ? undefined : (last.get(session)?.context as { servers?: { id: string }[] } | undefined);
      return (context?.servers ?? []).map((server) => server.id).sort();
    },
    isLive: (id: string): boolean => sessionOf(id) !== undefined,
  };
}

describe('the inspector tree', () => {
  it("finds an actor's servers from inspection events alone: named in its snapshot, children of its tenant's supervisor", async () => {
    const events: InspectionEvent[] = [];
    const runtime = await createRuntime({ config, inspect: (event) => events.push(event), callTimeoutMs: 10_000 });
    runtimes.push(runtime);
    const filer = await runtime.activate('filer', { tenant: 'acme' });
    const keeper = await runtime.activate('keeper', { tenant: 'acme' });
    const other = await runtime.activate('filer', { tenant: 'globex' });
    expect((await keeper.call('notes/echo', { message: 'hi' })).status).toBe('committed');

    const tree = treeOf(events);
    expect(tree.serversOf('actor:filer:acme')).toEqual(['server:files:acme']);
    expect(tree.serversOf('actor:keeper:acme')).toEqual(['server:files:acme', 'server:notes:acme']);
    expect(tree.serversOf('actor:filer:globex')).toEqual(['server:files:globex']);
    // Each server an actor names is a child of its tenant's supervisor, and the supervisor's
    // children are exactly the servers its tenant's actors hold.
    for (const [actor, supervisor] of [
      ['actor:filer:acme', 'servers:acme'],
      ['actor:keeper:acme', 'servers:acme'],
      ['actor:filer:globex', 'servers:globex'],
    ] as const) {
      expect(tree.parentOf(actor)).toBe('runtime');
      for (const server of tree.serversOf(actor)) expect(tree.parentOf(server)).toBe(supervisor);
    }
    expect(tree.parentOf('servers:acme')).toBe('runtime');
    expect(tree.childrenOf('servers:acme')).toEqual(['server:files:acme', 'server:notes:acme']);
    expect(tree.childrenOf('servers:globex')).toEqual(['server:files:globex']);

    // Letting go shows too: the keeper no longer names its servers; the one nobody holds is gone.
    const notesPid = runtime.status().servers.find((s) => s.server === 'notes')?.pid;
    await keeper.deactivate();
    const after = treeOf(events);
    expect(after.isLive('actor:keeper:acme')).toBe(false);
    expect(after.childrenOf('servers:acme')).toEqual(['server:files:acme']);
    expect(after.serversOf('actor:filer:acme')).toEqual(['server:files:acme']);
    if (notesPid !== undefined) await expectAllGone([notesPid]);
    await filer.deactivate();
    await other.deactivate();
    const none = treeOf(events);
    expect(none.isLive('servers:acme')).toBe(false);
    expect(none.isLive('servers:globex')).toBe(false);
    expect(none.childrenOf('runtime')).toEqual([]);
  });
});
