/**
 * The five public states of a supervised MCP server, as in the seeds. The machine's own states are
 * finer (STARTING covers spawning, the handshake and the wait between restarts); `publicStateOf`
 * maps one onto the other.
 */
export const ServerState = {
  STOPPED: 'STOPPED',
  STARTING: 'STARTING',
  RUNNING: 'RUNNING',
  STOPPING: 'STOPPING',
  ERROR: 'ERROR',
} as const;

export type ServerState = (typeof ServerState)[keyof typeof ServerState];

/** Top-level machine state → public state. */
export const PUBLIC_STATE_OF = {
  stopped: ServerState.STOPPED,
  starting: ServerState.STARTING,
  running: ServerState.RUNNING,
  stopping: ServerState.STOPPING,
  error: ServerState.ERROR,
} as const satisfies Record<string, ServerState>;

export type ServerMachineTopState = keyof typeof PUBLIC_STATE_OF;
