/**
 * One activation of one actor for a command: the runtime of the agents.yaml, the sandbox when
 * `--sandbox` asks for one, and the actor's handle — and, whatever happens, a shutdown that
 * leaves no server process behind, on Ctrl+C (SIGINT) and SIGTERM too.
 */
import { createRuntime, type Runtime } from '../runtime/create-runtime.js';
import type { ActorHandle } from '../runtime/actor-handle.js';
import type { ApprovalCallback } from '../runtime/permissions.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { storedAuth } from './auth-command.js';
import { ExitCode } from './cli-io.js';
import { configFile, pathFrom, type CommandContext } from './command-context.js';

export interface ActorSession {
  readonly runtime: Runtime;
  readonly handle: ActorHandle;
  readonly sandbox: Sandbox | undefined;
  /** The project directory of the sandbox, absolute. */
  readonly project: string | undefined;
}

/**
 * Runs `body` with the actor `actorName` activated for `--tenant` (in a sandbox of `--sandbox`),
 * and returns its exit code — or 130 / 143 when a signal ended it.
 *
 * @example
 * return withActorSession(context, 'triager', {}, async ({ handle }) => (print(context, ...), ExitCode.OK));
 */
export async function withActorSession(
  context: CommandContext,
  actorName: string,
  options: { approve?: ApprovalCallback },
  body: (session: ActorSession) => Promise<number>,
): Promise<number> {
  const { io, flags } = context;
  const tenant = flags.tenant;
  if (tenant === undefined) throw new Error('the command line parser lets no actor command run without --tenant');
  const auth = await storedAuth(context);
  const runtime = await createRuntime({
    file: configFile(context),
    env: io.env,
    ...(auth ? { auth } : {}),
    ...(options.approve === undefined ? {} : { approve: options.approve }),
  });
  let signalled: number | undefined;
  const stopListening = io.onSignal((signal) => {
    if (signalled !== undefined) {
      io.exit(signalled); // a second Ctrl+C: leave now; the runtime's exit hook still kills every server group
      return;
    }
    signalled = signal === 'SIGINT' ? ExitCode.SIGINT : ExitCode.SIGTERM;
    io.stderr.write(`\n${signal}: stopping the servers (again to leave at once)\n`);
    void runtime.shutdown().finally(() => io.exit(signalled ?? ExitCode.SIGINT));
  });
  try {
    const project = flags.sandbox === undefined ? undefined : pathFrom(context, flags.sandbox);
    const sandbox = project === undefined ? undefined : await runtime.createSandbox(project);
    const handle = await runtime.activate(actorName, { tenant, sandbox });
    const code = await body({ runtime, handle, sandbox, project });
    return signalled ?? code;
  } catch (error) {
    if (signalled !== undefined) return signalled;
    throw error;
  } finally {
    await runtime.shutdown();
    stopListening();
  }
}
