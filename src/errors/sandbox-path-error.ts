import { ErrorCode } from './codes.js';
import { McpActorsError, type McpActorsErrorOptions } from './mcp-actors-error.js';

const BRAND = Symbol.for('mcp-actors.sandbox-path-error');

/** Why a path was refused, for programs; the message says it for people. */
export const SandboxPathReason = {
  /** Not a string (a path argument must be one). */
  NOT_A_STRING: 'not-a-string',
  /** A NUL byte, raw or percent-encoded. */
  NUL_BYTE: 'nul-byte',
  /** `%2e`, `%2f` or `%5c` in the text (any case), or a double-encoded one inside a `file:` URI. */
  ENCODED_SEPARATOR: 'encoded-separator',
  /** Starts with `~`: home-relative paths are not expanded. */
  HOME_RELATIVE: 'home-relative',
  /** A `..` next to a backslash (`..\\x`, `a\\..`), which some servers read as a separator. */
  BACKSLASH_TRAVERSAL: 'backslash-traversal',
  /** A `..` that climbs above the root the path is relative to. */
  PARENT_TRAVERSAL: 'parent-traversal',
  /** An absolute path under neither the sandbox root nor the host root. */
  OUTSIDE_ROOTS: 'outside-roots',
  /** A symbolic link inside the sandbox resolves (or, dangling, points) outside it. */
  SYMLINK_ESCAPE: 'symlink-escape',
  /** The path could not be checked on disk (a link loop, or a permission error). */
  UNVERIFIABLE: 'unverifiable',
  /** A malformed `file:` URI, one with a query or fragment, or one whose path is not absolute. */
  INVALID_URI: 'invalid-uri',
  /** A `file://host/...` URI whose host is neither empty nor `localhost`. */
  REMOTE_FILE_URI: 'remote-file-uri',
} as const;

export type SandboxPathReason = (typeof SandboxPathReason)[keyof typeof SandboxPathReason];

/** One refused path: which argument, what value, why. */
export interface SandboxPathProblem {
  /** The argument path, e.g. `path`, `paths.2` or `edits.0.file`. */
  readonly argument: string;
  /** The offending value exactly as it was given. */
  readonly path: string;
  readonly reason: SandboxPathReason;
  /** One sentence saying what is wrong with it. */
  readonly problem: string;
}

/**
 * A path in a tool call that would leave the sandbox. The call is refused before it reaches the
 * server; `argument` names the field and `path` is the value, so the caller can fix that one field.
 */
export class SandboxPathError extends McpActorsError {
  readonly argument: string;
  readonly path: string;
  readonly reason: SandboxPathReason;
  readonly [BRAND] = true;

  constructor(problem: SandboxPathProblem, options: McpActorsErrorOptions = {}) {
    super(ErrorCode.SANDBOX_PATH, formatProblem(problem), {
      ...options,
      details: { ...options.details, argument: problem.argument, path: problem.path, reason: problem.reason },
    });
    this.name = 'SandboxPathError';
    this.argument = problem.argument;
    this.path = problem.path;
    this.reason = problem.reason;
  }
}

export function isSandboxPathError(value: unknown): value is SandboxPathError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

function formatProblem({ argument, path, problem }: SandboxPathProblem): string {
  // JSON.stringify makes NUL bytes and control characters visible in the message.
  return (
    `refused path in argument "${argument}" (${JSON.stringify(path)}): ${problem}; the call was not sent. ` +
    'Use a path relative to the project root, such as "src/main.py", or an absolute path under the project.'
  );
}
