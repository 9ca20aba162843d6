/**
 * `agents status <actor>`: activates the actor once and shows every server actor of the runtime —
 * a check that the actor's servers start; exits 1 when one did not. `--watch` (and `agents up`)
 * keeps them up and shows them live (`status-watch.ts`).
 */
import { ExitCode } from './cli-io.js';
import { print, type CommandContext } from './command-context.js';
import { withActorSession } from './actor-session.js';
import { watchCommand } from './status-watch.js';
import { allServersUp, formatStatus, statusJson, type StatusReport } from './format-status.js';

export async function statusCommand(context: CommandContext): Promise<number> {
  const actor = context.positionals[0] ?? '';
  if (context.flags.watch) return watchCommand(context, actor);
  return withActorSession(context, actor, {}, ({ runtime, handle }) => {
    const report: StatusReport = { actor, tenant: handle.tenant, status: runtime.status(), activation: handle.activation };
    print(context, formatStatus(report), () => statusJson(report));
    return Promise.resolve(allServersUp(report) ? ExitCode.OK : ExitCode.FAILED);
  });
}

/** `agents up <actor>`: `agents status <actor> --watch`. */
export function upCommand(context: CommandContext): Promise<number> {
  return watchCommand(context, context.positionals[0] ?? '');
}
