/**
 * What an operator sees while an actor's servers start: one progress line on a terminal
 * (`starting files… restart 2/5 in 400 ms: <last stderr line>`, nothing when piped), and the
 * judgement that a start looks permanent — the same error twice in a row — after which the command
 * stops waiting and says what to fix. The supervisor's restart rule is not changed by any of this.
 */
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { Runtime } from '../runtime/create-runtime.js';
import type { CliIo } from './cli-io.js';

export interface StartWatch {
  /** Rejects once a server's start failed twice with the same error; never resolves. */
  readonly permanent: Promise<never>;
  /** The actor is active: clear the progress line and stop judging starts. */
  activated(): void;
  close(): void;
}

function isTerminal(sink: unknown): boolean {
  return (sink as { isTTY?: boolean }).isTTY === true;
}

/** One line of an error, as an operator reads it. */
export function firstLine(text: string | undefined): string {
  return (text ?? '').split('\n')[0]?.trim() ?? '';
}

export function watchStarts(runtime: Runtime, io: CliIo, options: { progress: boolean }): StartWatch {
  const showProgress = options.progress && isTerminal(io.stderr);
  const lastError = new Map<string, string>();
  let active = false;
  let lineShown = false;
  let fail: (error: McpActorsError) => void = () => {};
  const permanent = new Promise<never>((_resolve, reject) => (fail = reject));
  permanent.catch(() => undefined);

  const clearLine = (): void => {
    if (lineShown) io.stderr.write('\r\u001b[K');
    lineShown = false;
  };
  const show = (text: string): void => {
    if (!showProgress || active) return;
    io.stderr.write(`\r\u001b[K${text}`);
    lineShown = true;
  };

  const subscription = runtime.events$.subscribe((event) => {
    if (active) return;
    if (event.type === 'server.state' && event.state === 'STARTING') show(`starting ${event.server}…`);
    if (event.type !== 'server.restarted') return;
    const server = runtime.status().servers.find((s) => s.server === event.server && s.tenant === event.tenant);
    const budget = runtime.config.servers[event.server]?.maxRestarts;
    const wait = server?.nextAttemptAt === undefined ? '' : ` in ${Math.max(0, server.nextAttemptAt - Date.now())} ms`;
    const said = firstLine(server?.lastStderrLine ?? event.error);
    show(`starting ${event.server}… restart ${event.restarts}${budget === undefined ? '' : `/${budget}`}${wait}${said ? `: ${said}` : ''}`);
    const key = `${event.server}\u0000${event.tenant}`;
    const error = firstLine(event.error);
    if (error !== '' && lastError.get(key) === error) {
      clearLine();
      fail(
        new McpActorsError(
          ErrorCode.ACTIVATION_FAILED,
          `server "${event.server}" failed to start twice with the same error, which looks permanent, so agents stopped waiting:\n` +
            `  ${error}\n` +
            `Fix the server's command, args, env or cwd under servers.${event.server} in ${runtime.config.source ?? 'agents.yaml'}, then run the command again.`,
          { details: { server: event.server, tenant: event.tenant, restarts: event.restarts } },
        ),
      );
    }
    lastError.set(key, error);
  });

  return {
    permanent,
    activated() {
      active = true;
      clearLine();
    },
    close() {
      active = true;
      clearLine();
      subscription.unsubscribe();
    },
  };
}
