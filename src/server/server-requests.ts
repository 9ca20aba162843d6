/**
 * Requests a server sends to its client: `elicitation/create` (ask the user) and
 * `sampling/createMessage` (ask the host's model). A capability is declared in the handshake only
 * when the host gave a handler for it, so a server never asks what nobody can answer. Elicitation
 * declares `form.applyDefaults` (SEP-1034): fields the host leaves out of an accepted answer are
 * filled with the defaults of the requested schema.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type ClientCapabilities,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallContext } from './call-context.js';

/** What a handler is told about the question besides its content. */
export interface ServerRequestContext {
  /** The server that asks. */
  readonly server: string;
  /**
   * Whose call the question belongs to: the context of the call in flight when the server asked,
   * when every call in flight on that server is made for the same actor; `undefined` otherwise.
   */
  readonly related: CallContext | undefined;
  /** Aborted when the server cancels its question or the connection ends. */
  readonly signal: AbortSignal;
}

export type ElicitParams = ElicitRequest['params'];
export type SampleParams = CreateMessageRequest['params'];

/** Answers `elicitation/create`: accept (with content), decline or cancel. */
export type ElicitHandler = (request: ElicitParams, context: ServerRequestContext) => ElicitResult | Promise<ElicitResult>;
/** Answers `sampling/createMessage` with the host model's message. */
export type SampleHandler = (request: SampleParams, context: ServerRequestContext) => CreateMessageResult | Promise<CreateMessageResult>;

export interface ServerRequestHandlers {
  readonly onElicit?: ElicitHandler | undefined;
  readonly onSample?: SampleHandler | undefined;
  /** The context of the calls in flight, to relate a question to (see `ServerRequestContext.related`). */
  readonly related?: (() => CallContext | undefined) | undefined;
}

/** The client capabilities the handlers allow. */
export function capabilitiesFor(handlers: ServerRequestHandlers | undefined): ClientCapabilities {
  return {
    ...(handlers?.onElicit ? { elicitation: { form: { applyDefaults: true } } } : {}),
    ...(handlers?.onSample ? { sampling: {} } : {}),
  };
}

/** Installs the handlers on `client` (before `connect`). */
export function installServerRequestHandlers(client: Client, server: string, handlers: ServerRequestHandlers | undefined): void {
  const onElicit = handlers?.onElicit;
  const onSample = handlers?.onSample;
  const contextOf = (signal: AbortSignal): ServerRequestContext => ({ server, related: handlers?.related?.(), signal });
  if (onElicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const answer = await onElicit(request.params, contextOf(extra.signal));
      // The SDK fills defaults in place: give it a copy, never the host's own object.
      return answer.action === 'accept' && answer.content ? { ...answer, content: { ...answer.content } } : answer;
    });
  }
  if (onSample) {
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => onSample(request.params, contextOf(extra.signal)));
  }
}

/** What a runtime's handler is told: the server, its tenant, and the actor whose call the question belongs to. */
export interface RuntimeRequestContext {
  readonly server: string;
  /** The tenant of the server actor (a server actor serves one tenant). */
  readonly tenant: string;
  /** The actor whose call in flight the question relates to; `undefined` when it relates to none (or to several actors). */
  readonly actor: string | undefined;
  readonly signal: AbortSignal;
}

export type RuntimeElicitHandler = (request: ElicitParams, context: RuntimeRequestContext) => ElicitResult | Promise<ElicitResult>;
export type RuntimeSampleHandler = (
  request: SampleParams,
  context: RuntimeRequestContext,
) => CreateMessageResult | Promise<CreateMessageResult>;

/** The runtime's handlers bound to one server actor's tenant. */
export function forTenant(
  tenant: string,
  handlers: { readonly onElicit?: RuntimeElicitHandler | undefined; readonly onSample?: RuntimeSampleHandler | undefined },
): { onElicit?: ElicitHandler; onSample?: SampleHandler } {
  const contextOf = (context: ServerRequestContext): RuntimeRequestContext => ({
    server: context.server,
    tenant,
    actor: context.related?.tenant === tenant ? context.related.actor : undefined,
    signal: context.signal,
  });
  const { onElicit, onSample } = handlers;
  return {
    ...(onElicit ? { onElicit: (request: ElicitParams, context: ServerRequestContext) => onElicit(request, contextOf(context)) } : {}),
    ...(onSample ? { onSample: (request: SampleParams, context: ServerRequestContext) => onSample(request, contextOf(context)) } : {}),
  };
}
