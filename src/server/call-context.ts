/**
 * Who a request to a server is made for, carried through async calls: the runtime's actor handle
 * runs each call inside `withCallContext({ actor, tenant })`, and a question the server asks back
 * (elicitation, sampling) while that call is in flight is told whom it concerns.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface CallContext {
  /** The actor whose call it is (runtime only). */
  readonly actor?: string | undefined;
  readonly tenant?: string | undefined;
}

const storage = new AsyncLocalStorage<CallContext>();

/** Runs `work` with `context` as the context of every request it makes. */
export function withCallContext<T>(context: CallContext, work: () => T): T {
  return storage.run(context, work);
}

/** The context of the request being made now, if any. */
export function currentCallContext(): CallContext | undefined {
  return storage.getStore();
}
