/**
 * `agents tools <actor> --tenant <t> [--sandbox <projectDir>]`: activates the actor, lists its
 * tools — category, capabilities, and which source decided read-only — and the servers that did
 * not start, then shuts the runtime down.
 */
import { ExitCode } from './cli-io.js';
import { print, type CommandContext } from './command-context.js';
import { withActorSession } from './actor-session.js';
import { formatTools, toolsJson, type ToolsReport } from './format-tools.js';

export async function toolsCommand(context: CommandContext): Promise<number> {
  const actor = context.positionals[0] ?? '';
  return withActorSession(context, actor, {}, ({ handle }) => {
    const report: ToolsReport = { actor, tenant: handle.tenant, tools: handle.tools(), activation: handle.activation };
    print(context, formatTools(report), () => toolsJson(report));
    return Promise.resolve(ExitCode.OK);
  });
}
