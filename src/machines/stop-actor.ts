/**
 * Stops an actor, root or not. XState refuses `stop()` on an actor created with a `parent`
 * ("a non-root actor cannot be stopped directly") because it expects parents to stop their
 * spawned children; our server and actor actors join a parent only to share its system (and its
 * inspector) while their owners manage their lifetimes. For those, this does what XState's own
 * `stopChild` does: `_stop()`, which also unregisters the systemId.
 */
import type { AnyActorRef } from 'xstate';

export function stopActor(actor: AnyActorRef): void {
  const internal = actor as AnyActorRef & { _parent?: AnyActorRef; _stop?: () => void };
  if (internal._parent && typeof internal._stop === 'function') internal._stop();
  else actor.stop();
}
