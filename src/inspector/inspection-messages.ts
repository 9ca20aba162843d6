/**
 * XState inspection events as the Stately inspector's WebSocket messages — the same messages,
 * field for field, that `@statelyai/inspect` 0.7.2's `createWebSocketInspector` sends (its
 * `convertXStateEvent` and its `safe-stable-stringify` serializer, depth limit 10) — then passed
 * through the redactor, so no secret is ever among the bytes.
 *
 * A message names an actor by its `id` (which the runtime sets to a label a person reads:
 * `runtime`, `actor:triager:acme`, `server:files:acme`, `call:triager:acme#3 files/write_file`),
 * or by its machine's id when it has none.
 */
import { configure } from 'safe-stable-stringify';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import type { Redactor } from '../redaction/redactor.js';

/** The protocol version the messages say they are (the `@statelyai/inspect` release they copy). */
export const INSPECT_PROTOCOL_VERSION = '0.7.2';

/** How deep the package serializes; deeper objects become `"[Object]"`. */
const DEPTH_LIMIT = 10;

const stringify = configure({ maximumDepth: DEPTH_LIMIT });

/** One message of the protocol, as parsed JSON. */
export interface InspectorMessage {
  readonly type: '@xstate.actor' | '@xstate.event' | '@xstate.snapshot';
  readonly sessionId: string;
  readonly [field: string]: unknown;
}

interface LogicWithConfig {
  readonly config?: { readonly id?: string } & Record<string, unknown>;
  /** A machine's root state node (other logic has none). */
  readonly root?: unknown;
}

function logicOf(actorRef: AnyActorRef): LogicWithConfig | undefined {
  return (actorRef as AnyActorRef & { logic?: LogicWithConfig }).logic;
}

/** Whether the actor runs a state machine (the inspector draws those; promise and callback steps are drawn as their states). */
export function isMachineActor(actorRef: AnyActorRef): boolean {
  const logic = logicOf(actorRef);
  return typeof logic?.config === 'object' && logic.root !== undefined;
}

function safeReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'function') return { type: (value as { name?: string }).name };
  return value;
}

/**
 * The session id of the actor that started `event.actorRef`, when `event` is the `xstate.init` event
 * XState sends every actor as it starts: its `sourceRef` is the parent (none for a root). The same
 * value the package reads from the actor's private `_parent`, read from the inspection event's
 * public fields instead.
 */
export function startedBy(event: InspectionEvent): { readonly sessionId: string; readonly parentId: string | undefined } | undefined {
  if (event.type !== '@xstate.event' || event.event.type !== 'xstate.init') return undefined;
  return { sessionId: event.actorRef.sessionId, parentId: (event.sourceRef as AnyActorRef | undefined)?.sessionId };
}

/** The `@xstate.actor` message for an actor, with its snapshot as it is now. */
export function actorMessage(actorRef: AnyActorRef, rootId: string | undefined, parentId: string | undefined): Record<string, unknown> {
  const definitionObject = logicOf(actorRef)?.config;
  let name = actorRef.id;
  if (name === actorRef.sessionId && definitionObject) name = String(definitionObject.id);
  const definition =
    typeof definitionObject === 'object' ? stringify(definitionObject, safeReplacer) : stringify({ id: name }, safeReplacer);
  return {
    name,
    type: '@xstate.actor',
    definition,
    _version: INSPECT_PROTOCOL_VERSION,
    createdAt: Date.now().toString(),
    id: null,
    rootId,
    parentId,
    sessionId: actorRef.sessionId,
    snapshot: actorRef.getSnapshot() as unknown,
  };
}

/**
 * The message for one inspection event, or undefined for the kinds the protocol does not carry.
 * `parentOf` gives an actor's parent session id (see `startedBy`).
 */
export function messageOf(
  event: InspectionEvent,
  parentOf: (sessionId: string) => string | undefined,
): Record<string, unknown> | undefined {
  const actorRef = event.actorRef as AnyActorRef;
  switch (event.type) {
    case '@xstate.actor':
      return actorMessage(actorRef, event.rootId, parentOf(actorRef.sessionId));
    case '@xstate.event':
      return {
        type: '@xstate.event',
        event: event.event,
        sourceId: (event.sourceRef as AnyActorRef | undefined)?.sessionId,
        sessionId: actorRef.sessionId,
        _version: INSPECT_PROTOCOL_VERSION,
        createdAt: Date.now().toString(),
        id: null,
        rootId: event.rootId,
      };
    case '@xstate.snapshot':
      return {
        type: '@xstate.snapshot',
        event: event.event,
        snapshot: JSON.parse(stringify(event.snapshot, safeReplacer) ?? 'null') as unknown,
        sessionId: actorRef.sessionId,
        _version: INSPECT_PROTOCOL_VERSION,
        createdAt: Date.now().toString(),
        id: null,
        rootId: event.rootId,
      };
    default:
      return undefined;
  }
}

/**
 * The bytes sent for a message: serialized as the package serializes it, then with every secret
 * replaced (on the parsed JSON, so the result stays valid JSON).
 */
export function wireText(message: unknown, redactor: Redactor): string {
  const text = stringify(message) ?? 'null';
  if (redactor.empty) return text;
  const parsed = JSON.parse(text) as unknown;
  const redacted = redactor.redact(parsed);
  return redacted === parsed ? text : (stringify(redacted) ?? 'null');
}
