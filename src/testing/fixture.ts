/**
 * Helpers to spawn the fault-injection fixture server (`fixture-server.mjs`): its path, the argv
 * for its switches, and a ready-made server configuration.
 */
import { fileURLToPath } from 'node:url';

/** The fixture's failure switches; each maps to one command-line flag of `fixture-server.mjs`. */
export type FixtureOptions = {
  /** Answer this many tools/call requests, then exit before answering the next one. */
  crashAfter?: number;
  /** How `crashAfter` ends the process: `process.exit(1)` (default) or SIGKILL of itself. */
  crashMode?: 'exit' | 'sigkill';
  /** Like `crashAfter`, but a normal exit with code 0. */
  exitZeroAfter?: number;
  /** Exit with this code at once, before reading stdin (one line on stderr says so). */
  exitOnStart?: number;
  /** Read stdin forever, never answer anything — not even initialize. */
  hangOnInitialize?: boolean;
  /** Never answer tools/call; ping and tools/list still work. */
  hangOnCall?: boolean;
  /** A non-JSON line on stdout at start and before every tool call answer. */
  garbageStdout?: boolean;
  /** Ignore SIGTERM and the end of stdin; only SIGKILL ends it. */
  ignoreSigterm?: boolean;
  /** Spawn a grandchild in the server's process group that holds its stdout and never exits. */
  forkGrandchild?: boolean;
  /** Write this many lines `fixture stderr line <i>` to stderr at start. */
  stderrLines?: number;
  /** Wait this long before answering anything (a slow start). */
  startupDelayMs?: number;
  /** Never answer ping (a hung server, for liveness checks). */
  pingHang?: boolean;
  /** tools/list answers in pages of this many tools, with nextCursor. */
  pageSize?: number;
  /** Answer initialize with this protocol version (a version mismatch). */
  protocolVersion?: string;
  /** Wait this long before answering every tools/call (slow calls). */
  slowCallsMs?: number;
  /** Before answering the first tools/call, write one JSON line of this many bytes (over the cap). */
  oversizedMessage?: number;
  /** On the first tools/call, write half a JSON-RPC line, then exit 1. */
  halfFrameExit?: boolean;
  /** Write stderr lines without pause from the start. */
  stderrFlood?: boolean;
  /** Stop reading stdin after answering this many tools/call requests. */
  stopReadingAfter?: number;
  /** tools/call sends progress every 10 ms and never answers. */
  endlessProgress?: boolean;
  /** Send this many tools/list_changed notifications right after initialized. */
  listChangedStorm?: number;
  /** After answering the first tools/list, send tools/list_changed without pause (50 a turn of the event loop). */
  listChangedFlood?: boolean;
  /** Every tool says readOnlyHint: true (write_then_fail still writes). */
  lyingAnnotations?: boolean;
  /** Every response is written twice. */
  duplicateResponses?: boolean;
  /** A response with an id never requested comes before each answer. */
  unknownResponseIds?: boolean;
  /** Answer every tools/call with a JSON-RPC error -32602 (Invalid params), as an SDK server does for a throw. */
  invalidParamsOnCall?: boolean;
};

/** The configuration `fixtureServerConfig` returns; it fits `McpServerConfig`. */
export type FixtureServerConfig = {
  name: string;
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
};

/** Absolute path of `fixture-server.mjs`, beside this module in `src/` (vitest) or `dist/` (built). */
export function fixtureServerPath(): string {
  return fileURLToPath(new URL('./fixture-server.mjs', import.meta.url));
}

/**
 * The command-line switches of the fixture server for `options`.
 *
 * @example
 * spawn(process.execPath, [fixtureServerPath(), ...fixtureArgs({ crashAfter: 2, crashMode: 'sigkill' })]);
 */
export function fixtureArgs(options: FixtureOptions = {}): string[] {
  const args: string[] = [];
  const value = (flag: string, n: number | string | undefined) => {
    if (n !== undefined) args.push(`--${flag}=${n}`);
  };
  const on = (flag: string, b: boolean | undefined) => {
    if (b) args.push(`--${flag}`);
  };
  value('crash-after', options.crashAfter);
  value('crash-mode', options.crashMode);
  value('exit-zero-after', options.exitZeroAfter);
  value('exit-on-start', options.exitOnStart);
  on('hang-on-initialize', options.hangOnInitialize);
  on('hang-on-call', options.hangOnCall);
  on('garbage-stdout', options.garbageStdout);
  on('ignore-sigterm', options.ignoreSigterm);
  on('fork-grandchild', options.forkGrandchild);
  value('stderr-lines', options.stderrLines);
  value('startup-delay-ms', options.startupDelayMs);
  on('ping-hang', options.pingHang);
  value('page-size', options.pageSize);
  value('protocol-version', options.protocolVersion);
  value('slow-calls-ms', options.slowCallsMs);
  value('oversized-message', options.oversizedMessage);
  on('half-frame-exit', options.halfFrameExit);
  on('stderr-flood', options.stderrFlood);
  value('stop-reading-after', options.stopReadingAfter);
  on('endless-progress', options.endlessProgress);
  value('list-changed-storm', options.listChangedStorm);
  on('list-changed-flood', options.listChangedFlood);
  on('lying-annotations', options.lyingAnnotations);
  on('duplicate-responses', options.duplicateResponses);
  on('unknown-response-ids', options.unknownResponseIds);
  on('invalid-params-on-call', options.invalidParamsOnCall);
  return args;
}

/**
 * A stdio server configuration that runs the fixture with `options`. With `viaShell`, a `/bin/sh`
 * wrapper forks node as its child (the trailing `exit $?` stops the shell from exec'ing it), so
 * the shell leads the process group and the server is a grandchild — like a launcher. `extra`
 * is spread over the result (restart policy, timeouts, ...). `env` carries `MCP_ACTORS_PID_LOG`
 * when the host has it, so the test suite can check that nothing outlived it.
 *
 * @example
 * const config = fixtureServerConfig({ name: 'flaky', crashAfter: 1, extra: { restart: 'transient' } });
 */
export function fixtureServerConfig<const E extends Record<string, unknown> = Partial<FixtureServerConfig>>(
  options: FixtureOptions & { name?: string; viaShell?: boolean; extra?: E } = {},
): FixtureServerConfig & E {
  const { name = 'fixture', viaShell = false, extra, ...switches } = options;
  const serverArgs = [fixtureServerPath(), ...fixtureArgs(switches)];
  const env: Record<string, string> = {};
  const pidLog = process.env.MCP_ACTORS_PID_LOG;
  if (pidLog) env.MCP_ACTORS_PID_LOG = pidLog;
  const launch = viaShell
    ? { command: '/bin/sh', args: ['-c', '"$0" "$@"; exit $?', process.execPath, ...serverArgs] }
    : { command: process.execPath, args: serverArgs };
  return { name, transport: 'stdio', ...launch, env, ...(extra as E) };
}
