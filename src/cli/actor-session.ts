/**
 * One activation of one actor for a command: the runtime of the agents.yaml, the sandbox when
 * `--sandbox` asks for one, and the actor's handle — and, whatever happens, a shutdown that
 * leaves no server process behind, on Ctrl+C (SIGINT) and SIGTERM too.
 *
 * While the servers start, an operator at a terminal sees progress on stderr (nothing when
 * piped); a server whose start fails twice with the same error is reported as looking permanent
 * and the command stops waiting for it (the supervisor's own restart rule is unchanged).
 */
import { createRuntime, type Runtime } from '../runtime/create-runtime.js';
import type { ActorHandle } from '../runtime/actor-handle.js';
import type { ApprovalCallback } from '../runtime/permissions.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { storedAuth } from './auth-command.js';
import { ExitCode } from './cli-io.js';
import { configFile, pathFrom, type CommandContext } from './command-context.js';
import { watchStarts, type StartWatch } from './start-progress.js';

export interface ActorSession {
  readonly runtime: Runtime;
  readonly handle: ActorHandle;
  readonly sandbox: Sandbox | undefined;
  /** The project directory of the sandbox, absolute. */
  readonly project: string | undefined;
  /** Settles when Ctrl+C or SIGTERM asked the command to end (the shutdown is then under way). */
  readonly interrupted: Promise<void>;
}

export interface SessionOptions {
  readonly approve?: ApprovalCallback;
  /** Called with the runtime before the actor is activated (to watch its servers start). */
  readonly onRuntime?: (runtime: Runtime) => void;
  /** Show start progress on a terminal (default true; a live view draws its own). */
  readonly progress?: boolean;
}

/** The tenant of `--tenant`, else `default_tenant` of the file, else `local`. */
export function tenantFor(context: CommandContext, runtime: Runtime): string {
  return context.flags.tenant ?? runtime.config.defaultTenant ?? 'local';
}

/**
 * Runs `body` with the actor `actorName` activated for the tenant (in a sandbox of `--sandbox`),
 * and returns its exit code — or 130 / 143 when a signal ended it.
 *
 * @example
 * return withActorSession(context, 'triager', {}, async ({ handle }) => (print(context, ...), ExitCode.OK));
 */
export async function withActorSession(
  context: CommandContext,
  actorName: string,
  options: SessionOptions,
  body: (session: ActorSession) => Promise<number>,
): Promise<number> {
  const { io, flags } = context;
  const auth = await storedAuth(context);
  const runtime = await createRuntime({
    file: configFile(context),
    env: io.env,
    ...(auth ? { auth } : {}),
    ...(flags.inspect ? { inspect: { print: (line: string) => void io.stderr.write(`${line}\n`) } } : {}),
    ...(options.approve === undefined ? {} : { approve: options.approve }),
  });
  let signalled: number | undefined;
  let interrupt = (): void => {};
  const interrupted = new Promise<void>((resolve) => (interrupt = resolve));
  const stopListening = io.onSignal((signal) => {
    if (signalled !== undefined) {
      io.exit(signalled); // a second Ctrl+C: leave now; the runtime's exit hook still kills every server group
      return;
    }
    signalled = signal === 'SIGINT' ? ExitCode.SIGINT : ExitCode.SIGTERM;
    interrupt();
    io.stderr.write(`\n${signal}: stopping the servers (again to leave at once)\n`);
    void runtime.shutdown().finally(() => io.exit(signalled ?? ExitCode.SIGINT));
  });
  let starts: StartWatch | undefined;
  try {
    options.onRuntime?.(runtime);
    starts = watchStarts(runtime, io, { progress: options.progress ?? true });
    const project = flags.sandbox === undefined ? undefined : pathFrom(context, flags.sandbox);
    const sandbox = project === undefined ? undefined : await runtime.createSandbox(project);
    const activation = runtime.activate(actorName, { tenant: tenantFor(context, runtime), sandbox });
    activation.catch(() => undefined); // when the start looks permanent, the shutdown below settles it
    const handle = await Promise.race([activation, starts.permanent]);
    starts.activated();
    const code = await body({ runtime, handle, sandbox, project, interrupted });
    return signalled ?? code;
  } catch (error) {
    if (signalled !== undefined) return signalled;
    throw error;
  } finally {
    starts?.close();
    await runtime.shutdown();
    stopListening();
  }
}
