/**
 * `agents status <actor> --tenant <t>`: activates the actor once and shows every server actor
 * of the runtime — a check that the actor's servers start. Exits 1 when one did not.
 */
import { ExitCode } from './cli-io.js';
import { print, type CommandContext } from './command-context.js';
import { withActorSession } from './actor-session.js';
import { allServersUp, formatStatus, statusJson, type StatusReport } from './format-status.js';

export async function statusCommand(context: CommandContext): Promise<number> {
  const actor = context.positionals[0] ?? '';
  return withActorSession(context, actor, {}, async ({ runtime, handle }) => {
    const report: StatusReport = { actor, tenant: handle.tenant, status: runtime.status(), activation: handle.activation };
    print(context, formatStatus(report), () => statusJson(report));
    return allServersUp(report) ? ExitCode.OK : ExitCode.FAILED;
  });
}
