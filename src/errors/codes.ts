/**
 * Every error code the runtime raises at its public boundary, in one place.
 *
 * Local errors use string codes (as the MCP SDK does for `REQUEST_TIMEOUT`); errors that arrive over
 * the wire keep MCP's numeric JSON-RPC code in `details.mcpCode`.
 */
export const ErrorCode = {
  /** A configuration value is missing, misspelled or of the wrong type. */
  CONFIG_INVALID: 'CONFIG_INVALID',
  /** A configuration file changed on disk between being read and being written back; nothing was written. */
  CONFIG_CHANGED: 'CONFIG_CHANGED',
  /** A file the runtime or the CLI rewrites (agents.yaml, the token file) stayed locked by another live process past the wait; nothing was written. */
  FILE_BUSY: 'FILE_BUSY',
  /** An argument to a public method is not what the method takes. */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  /** Two things were registered under one name. */
  DUPLICATE_NAME: 'DUPLICATE_NAME',
  /** A name was looked up that nothing was registered under. */
  NOT_FOUND: 'NOT_FOUND',

  /** The server process could not be spawned at all (ENOENT, EACCES, bad cwd). Not retried. */
  SPAWN_FAILED: 'SPAWN_FAILED',
  /** The server process exited before or during the MCP initialize handshake. */
  SERVER_EXITED: 'SERVER_EXITED',
  /** The initialize handshake did not finish within `startTimeoutMs`. */
  START_TIMEOUT: 'START_TIMEOUT',
  /** The initialize handshake failed for another reason (protocol error, bad answer). */
  HANDSHAKE_FAILED: 'HANDSHAKE_FAILED',
  /** The server crashed or its transport closed while it was running. */
  SERVER_CRASHED: 'SERVER_CRASHED',
  /** A ping did not come back within the ping interval: the server is hung. */
  PING_TIMEOUT: 'PING_TIMEOUT',
  /** A message from the server exceeded `maxMessageBytes`; the connection was closed. */
  MESSAGE_TOO_LARGE: 'MESSAGE_TOO_LARGE',

  /** The method needs a connection and there is none (for example after `disconnect()`). */
  NOT_CONNECTED: 'NOT_CONNECTED',
  /** The connection was lost while the request was in flight; no answer can come. */
  CONNECTION_LOST: 'CONNECTION_LOST',
  /** The request did not complete within its deadline; MCP cancellation was sent. */
  REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  /** The caller aborted the request through its `AbortSignal`; MCP cancellation was sent. */
  CANCELLED: 'CANCELLED',
  /** The server is in ERROR (restart intensity exceeded or a start that cannot succeed). */
  SERVER_IN_ERROR: 'SERVER_IN_ERROR',
  /** `stop()` was called while the request was waiting for the server to start. */
  SERVER_STOPPED: 'SERVER_STOPPED',
  /** The server answered the request with a JSON-RPC error. */
  PROTOCOL_ERROR: 'PROTOCOL_ERROR',
  /** A remote server answered 401: it needs credentials (an `auth` provider, a login, or a header). Not retried blindly. */
  AUTH_REQUIRED: 'AUTH_REQUIRED',
  /** A remote server refused the credentials given (403, a failed token exchange, or a scope step-up that did not help). */
  AUTH_FAILED: 'AUTH_FAILED',

  /** A path in a tool call would leave the sandbox (`..`, outside both roots, symlink out, NUL, encoded dots). */
  SANDBOX_PATH: 'SANDBOX_PATH',
  /**
   * A link inside the sandbox, made during the call, resolves outside it: the call may have
   * written outside the sandbox; it was rolled back (the paths are in `details.links`).
   */
  SANDBOX_ESCAPE: 'SANDBOX_ESCAPE',
  /** The server asks for OS confinement (`confine: true`) and this machine cannot provide it (`details.install`). */
  CONFINEMENT_UNAVAILABLE: 'CONFINEMENT_UNAVAILABLE',
  /** The sandbox could not be created, read or disposed. */
  SANDBOX_FAILED: 'SANDBOX_FAILED',
  /** `applyToHost()` found host files changed since the sandbox was made; nothing was written. */
  APPLY_CONFLICT: 'APPLY_CONFLICT',
  /** No checkpoint with that id exists in the store. */
  CHECKPOINT_NOT_FOUND: 'CHECKPOINT_NOT_FOUND',
  /** Taking or restoring a checkpoint failed (the message says which step). */
  CHECKPOINT_FAILED: 'CHECKPOINT_FAILED',

  /** A permission rule refused the call (the rule is in `details.rule`). */
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  /** The tool reported a failure, or its server answered the call with a JSON-RPC error (the finer kind in `details.kind`, the JSON-RPC code in `details.mcpCode`, the SDK's error as `cause`). */
  TOOL_FAILED: 'TOOL_FAILED',
  /** A tool classified read-only changed the sandbox; the change was rolled back. */
  CAPABILITY_VIOLATION: 'CAPABILITY_VIOLATION',
  /** An argument named like the tenant key; the tenant comes from the session, never from arguments. */
  TENANT_ARGUMENT: 'TENANT_ARGUMENT',
  /** A call named a tenant (in `_meta`) other than the one its session or process is bound to. */
  TENANT_MISMATCH: 'TENANT_MISMATCH',
  /** An actor could not be activated (a required server did not start, or an unknown skill or actor). */
  ACTIVATION_FAILED: 'ACTIVATION_FAILED',
  /** The runtime was shut down; create a new one. */
  RUNTIME_SHUT_DOWN: 'RUNTIME_SHUT_DOWN',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
