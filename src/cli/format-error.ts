/**
 * How the CLI reports an error: `error [CODE]: message` for the runtime's errors, `error: message`
 * for a wrong command line or anything else, a hint when the CLI knows the flag that fixes it, and
 * the stack traces (with every cause) only under `--debug`.
 */
import { isMcpActorsError } from '../errors/mcp-actors-error.js';
import { isUsageError } from './usage-error.js';

/**
 * The text for stderr, ending with a newline. `file` is the agents file of `--file` as the
 * operator wrote it (default agents.yaml): hints name the file to edit.
 */
export function formatError(error: unknown, options: { debug: boolean; file?: string | undefined }): string {
  const lines: string[] = [];
  const inError = serverInError(error);
  if (inError !== undefined) lines.push(`error [${inError.code}]: ${inError.message}`);
  else if (isMcpActorsError(error)) lines.push(`error [${error.code}]: ${error.message}`);
  else lines.push(`error: ${error instanceof Error ? error.message : String(error)}`);
  const hint = cliHint(error, options.file);
  if (hint !== undefined) lines.push(`hint: ${hint}`);
  if (options.debug && !isUsageError(error)) lines.push('', ...stacks(error));
  else if (!isMcpActorsError(error) && !isUsageError(error)) lines.push('(this is unexpected: run again with --debug for the stack trace)');
  return `${lines.join('\n')}\n`;
}

/** The error as JSON for `--json`: code, message and details. */
export function errorJson(error: unknown): { code: string; message: string; details?: unknown } {
  if (isMcpActorsError(error)) return { code: error.code, message: error.message, details: error.details };
  if (isUsageError(error)) return { code: 'USAGE', message: error.message };
  return { code: 'UNEXPECTED', message: error instanceof Error ? error.message : String(error) };
}

/** What to write on the command line or change in `file` when the runtime's message speaks of its API. */
export function cliHint(error: unknown, file = 'agents.yaml'): string | undefined {
  for (const link of causes(error)) {
    if (!isMcpActorsError(link)) continue;
    if (link.details.placeholder === 'SANDBOX_ROOT') return 'a server of this actor works in a sandbox: add --sandbox <projectDir>';
    if (link.code === 'SERVER_IN_ERROR' && typeof link.details.server === 'string') {
      return `fix command, args, env or cwd under servers.${link.details.server} in ${file}, then run the command again`;
    }
  }
  return undefined;
}

/**
 * A server in ERROR, said in an operator's words: which server, after how many restarts, and the
 * error that put it there — read from the error's structure (its code, details and cause), since
 * the runtime's own message speaks to a program (start(), reconnect()).
 */
function serverInError(error: unknown): { code: string; message: string } | undefined {
  const link = causes(error).find((candidate) => isMcpActorsError(candidate) && candidate.code === 'SERVER_IN_ERROR');
  if (!isMcpActorsError(link) || typeof link.details.server !== 'string') return undefined;
  const restarts = typeof link.details.restarts === 'number' ? link.details.restarts : undefined;
  const after = restarts === undefined ? '' : ` after ${restarts} automatic restart${restarts === 1 ? '' : 's'}`;
  const why = link.cause instanceof Error ? `: ${link.cause.message}` : '';
  const top = isMcpActorsError(error) ? error.code : link.code;
  return { code: top, message: `server "${link.details.server}" could not start and gave up${after}${why}` };
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let link: unknown = error; link !== undefined && chain.length < 10; link = (link as { cause?: unknown } | null)?.cause) {
    chain.push(link);
    if (typeof link !== 'object' || link === null) break;
  }
  return chain;
}

function stacks(error: unknown): string[] {
  return causes(error).map((link, i) => {
    const text = link instanceof Error ? (link.stack ?? link.message) : String(link);
    const code = isMcpActorsError(link) ? ` [${link.code}]` : '';
    return i === 0 ? text : `caused by${code}: ${text}`;
  });
}
