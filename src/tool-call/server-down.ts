/**
 * A server an actor cannot use, said to the runtime's reader: which server, why it is down (its
 * last error's code and message, read from the error's structure) and the way back that an actor's
 * holder has — activating the actor again, which starts the server afresh. The `McpClient`'s own
 * words (`start()`, `reconnect()`) are for whoever holds a client; an actor's holder has none.
 */
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, isMcpActorsError, messageOf } from '../errors/mcp-actors-error.js';

/** A server of the actor that is not serving: it did not start at activation, or gave up since. */
export interface DownServer {
  readonly server: string;
  readonly error: McpActorsError;
}

export interface ServerDownReason {
  readonly server: string;
  /** How many automatic restarts it made before giving up, when it gave up (SERVER_IN_ERROR). */
  readonly restarts: number | undefined;
  /** `CODE: message` of the error that put it down. */
  readonly reason: string;
  /** The SERVER_IN_ERROR link of the error, when the server gave up after restarts. */
  readonly inError: McpActorsError | undefined;
}

/** The SERVER_IN_ERROR link of an error's cause chain, if any. */
export function serverInErrorLink(error: unknown): McpActorsError | undefined {
  let link: unknown = error;
  for (let depth = 0; depth < 10 && link !== undefined && link !== null; depth++) {
    if (isMcpActorsError(link) && link.code === ErrorCode.SERVER_IN_ERROR) return link;
    link = (link as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Why `server` is down, from the structure of `error` (SERVER_IN_ERROR's details, else the error itself). */
export function serverDownReason(server: string, error: unknown): ServerDownReason {
  const inError = serverInErrorLink(error);
  if (inError === undefined) {
    const code = isMcpActorsError(error) ? `${error.code}: ` : '';
    return { server, restarts: undefined, reason: `${code}${messageOf(error)}`, inError };
  }
  const last = inError.details.lastError as { code?: unknown; message?: unknown } | undefined;
  const restarts = typeof inError.details.restarts === 'number' ? inError.details.restarts : undefined;
  const reason =
    last !== undefined && typeof last.message === 'string'
      ? `${typeof last.code === 'string' ? `${last.code}: ` : ''}${last.message}`
      : 'no error was recorded';
  return { server, restarts, reason, inError };
}

/** `did not start: it gave up after 2 automatic restarts (SERVER_EXITED: …)`, or the error that stopped it. */
export function downText(down: ServerDownReason): string {
  if (down.restarts === undefined) return `did not start (${down.reason})`;
  return `is down: it gave up after ${down.restarts} automatic restart${down.restarts === 1 ? '' : 's'} (${down.reason})`;
}

/** The error of calling a tool of a server that is down. */
export function serverDownError(tool: string, down: ServerDownReason): McpActorsError {
  const code = down.inError !== undefined ? ErrorCode.SERVER_IN_ERROR : ErrorCode.NOT_CONNECTED;
  return new McpActorsError(
    code,
    `"${tool}" cannot be called: server "${down.server}" ${downText(down)}; fix the cause, then deactivate() the actor and activate() it again, which starts the server afresh`,
    { cause: down.inError, details: { tool, server: down.server, restarts: down.restarts, reason: down.inError?.details.reason } },
  );
}

/**
 * The error an actor's activation gives for a server that did not start.
 *
 * @example
 * throw activationFailedError('files', 'editor', cause, true);
 */
export function activationFailedError(server: string, actor: string, cause: unknown, required: boolean): McpActorsError {
  const down = serverDownReason(server, cause);
  const text =
    down.inError !== undefined
      ? `server "${server}" of actor "${actor}" ${downText(down)}; fix the cause, then activate the actor again`
      : `server "${server}" of actor "${actor}" did not start: ${messageOf(cause)}`;
  return new McpActorsError(ErrorCode.ACTIVATION_FAILED, text, { cause, details: { server, required } });
}
