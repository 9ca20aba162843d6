/**
 * `McpServerConfig`: what a host writes to describe one MCP server, and the defaults that fill in
 * everything it leaves out. Validation lives in `validate-server-config.ts`; the snake_case keys of
 * the YAML file are mapped in `config-keys.ts`.
 */

import type { ConfineSetting } from './confine-setting.js';

export const TRANSPORTS = ['stdio', 'sse', 'streamable-http'] as const;
export type TransportKind = (typeof TRANSPORTS)[number];

/** OTP's restart types: `permanent` always, `transient` only after an abnormal exit, `temporary` never. */
export const RESTART_POLICIES = ['permanent', 'transient', 'temporary'] as const;
export type RestartPolicy = (typeof RESTART_POLICIES)[number];

export interface BackoffConfig {
  /** Delay before the first automatic restart in a window. */
  readonly initialMs: number;
  /** Upper bound of any delay. */
  readonly maxMs: number;
  /** Growth per restart: delay = initialMs * factor^(restarts in window). */
  readonly factor: number;
  /** Fraction (0..1) of the delay that is randomised, to spread a thundering herd. */
  readonly jitter: number;
}

/** The configuration a host writes. Only `name` and the transport's endpoint are required. */
export interface McpServerConfig {
  /** Server identifier, unique within a registry. */
  readonly name: string;
  /** `stdio` (default when `command` is given), `sse`, or `streamable-http` (default when `url` is given). */
  readonly transport?: TransportKind;
  /** stdio: the program to spawn. */
  readonly command?: string;
  readonly args?: readonly string[];
  /** stdio: variables added to the small allowlist inherited from the host (HOME, LOGNAME, PATH, SHELL, TERM, USER). */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** sse / streamable-http: the server's endpoint. */
  readonly url?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * streamable-http: when the server answers the first POST with a 4xx, connect again with the
   * older `sse` transport. Default: on when `transport` is left out, off when it is written.
   */
  readonly sseFallback?: boolean;

  readonly restart?: RestartPolicy;
  /** Restart intensity: at most this many automatic restarts within `periodMs`, then ERROR. */
  readonly maxRestarts?: number;
  readonly periodMs?: number;
  readonly backoff?: Partial<BackoffConfig>;
  /** Spawn-to-initialized deadline (the startup probe). */
  readonly startTimeoutMs?: number;
  /** Default deadline of a call, counted from when it is made (waiting for a start included). */
  readonly callTimeoutMs?: number;
  /** Budget for a clean stop: half waiting after stdin closes, half after SIGTERM, then SIGKILL. */
  readonly shutdownTimeoutMs?: number;
  /** Stop the server after this long with no call in flight; 0 turns idle stop off. */
  readonly idleStopMs?: number;
  /** Ping the server this often while running; a ping unanswered within the interval restarts it. 0 = off. */
  readonly pingIntervalMs?: number;
  /** stdio: a single message longer than this closes the connection (MESSAGE_TOO_LARGE). */
  readonly maxMessageBytes?: number;
  /** stdio: how many of the server's last stderr lines to keep for error messages. */
  readonly stderrLines?: number;
  /** Whether the server's tool annotations are believed in full (the registry uses this). */
  readonly trusted?: boolean;
  /** Directories offered to the server as MCP roots (absolute paths; `${SANDBOX_ROOT}` in agents.yaml). */
  readonly roots?: readonly string[];
  /** stdio: OS confinement to the sandbox (see `confine-setting.ts`); default: confined when in a sandbox and available. */
  readonly confine?: ConfineSetting;
}

/** A configuration with every default filled in; what the machines and actors use. */
export interface ResolvedServerConfig {
  readonly name: string;
  readonly transport: TransportKind;
  readonly command: string | undefined;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
  readonly url: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  /** Present (true) only when on: streamable-http falls back to sse on a 4xx to the first POST. */
  readonly sseFallback?: true;
  readonly restart: RestartPolicy;
  readonly maxRestarts: number;
  readonly periodMs: number;
  readonly backoff: BackoffConfig;
  readonly startTimeoutMs: number;
  readonly callTimeoutMs: number;
  readonly shutdownTimeoutMs: number;
  readonly idleStopMs: number;
  readonly pingIntervalMs: number;
  readonly maxMessageBytes: number;
  readonly stderrLines: number;
  readonly trusted: boolean;
  readonly roots: readonly string[];
  readonly confine?: ConfineSetting | undefined;
}

/** Every default, documented in the README's configuration table. */
export const SERVER_CONFIG_DEFAULTS = {
  restart: 'permanent',
  maxRestarts: 5,
  periodMs: 60_000,
  backoff: { initialMs: 200, maxMs: 10_000, factor: 2, jitter: 0.2 },
  startTimeoutMs: 30_000,
  callTimeoutMs: 60_000,
  shutdownTimeoutMs: 4_000,
  idleStopMs: 0,
  pingIntervalMs: 0,
  maxMessageBytes: 16 * 1024 * 1024,
  stderrLines: 40,
  trusted: false,
} as const satisfies Omit<ResolvedServerConfig, 'name' | 'transport' | 'command' | 'args' | 'env' | 'cwd' | 'url' | 'headers' | 'sseFallback' | 'roots'>;
