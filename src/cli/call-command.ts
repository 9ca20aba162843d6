/**
 * `agents call <actor> <tool> [json-args] --tenant <t> [--sandbox <dir>] [--apply] [--timeout-ms n] [--yes]`:
 * one tool call as the actor, through its permissions (execute tools under `ask` are approved on
 * the terminal), in a sandbox when asked; prints the outcome, the sandbox's diff, and what
 * `--apply` wrote. Exits 0 when the call committed, 1 otherwise.
 */
import { isMcpActorsError } from '../errors/mcp-actors-error.js';
import type { CallOutcome } from '../tool-call/tool-call-io.js';
import { ExitCode } from './cli-io.js';
import { print, type CommandContext } from './command-context.js';
import { withActorSession, type ActorSession } from './actor-session.js';
import { parseCallArguments } from './call-arguments.js';
import { suggest } from './did-you-mean.js';
import { formatOutcome, outcomeJson, type SandboxReport } from './format-outcome.js';
import { cliHint } from './format-error.js';
import { terminalApproval } from './terminal-approval.js';

export async function callCommand(context: CommandContext): Promise<number> {
  const [actor = '', tool = '', json] = context.positionals;
  const args = parseCallArguments(json);
  const { flags, io } = context;
  const approval = terminalApproval({ input: io.stdin, prompt: io.stderr, yes: flags.yes });
  try {
    return await withActorSession(context, actor, { approve: approval.approve }, async (session) => {
      const outcome = await session.handle.call(tool, args, flags.timeoutMs === undefined ? {} : { timeoutMs: flags.timeoutMs });
      approval.close();
      const sandbox = await sandboxReport(session, outcome, flags.apply);
      // What the tool answered (a failed tool's text too) may echo a secret: a terminal and a log
      // see it only through the runtime's redactor, as errors, status and events are.
      const { redactor } = session.runtime;
      print(context, redactor.redactText(formatOutcome(outcome, sandbox) + hintFor(outcome, tool, session)), () =>
        redactor.redact({
          outcome: outcomeJson(outcome),
          ...(sandbox === undefined ? {} : { sandbox }),
        }),
      );
      const applyFailed = sandbox?.applyError !== undefined;
      return outcome.status === 'committed' && !applyFailed ? ExitCode.OK : ExitCode.FAILED;
    });
  } finally {
    approval.close();
  }
}

/** The diff of the sandbox after the call, and what `--apply` wrote into the project. */
async function sandboxReport(session: ActorSession, outcome: CallOutcome, apply: boolean): Promise<SandboxReport | undefined> {
  const { sandbox, project } = session;
  if (sandbox === undefined || project === undefined) return undefined;
  const diff = await sandbox.diff();
  if (!apply) return { project, diff };
  if (outcome.status !== 'committed') return { project, diff, notApplied: `the call ended ${outcome.status}, so nothing was written` };
  try {
    const { applied } = await sandbox.applyToHost();
    return { project, diff, applied };
  } catch (error) {
    if (!isMcpActorsError(error)) throw error;
    return { project, diff, notApplied: `[${error.code}] ${error.message}`, applyError: error.code };
  }
}

/** A line that says what to try when the outcome points at the command line. */
function hintFor(outcome: CallOutcome, tool: string, session: ActorSession): string {
  const error = outcome.error;
  if (!isMcpActorsError(error)) return '';
  if (error.code === 'NOT_FOUND' && outcome.result === undefined) {
    const names = session.handle.tools().map((t) => t.name);
    const own = tool.split('/').at(-1) ?? tool;
    const near = names.filter((name) => name.split('/')[1] === own);
    const candidates = near.length > 0 ? near : [suggest(tool, names)].filter((name): name is string => name !== undefined);
    const list = candidates.length > 0 ? `did you mean ${candidates.map((n) => `"${n}"`).join(' or ')}? ` : '';
    return `hint: ${list}agents tools ${session.handle.name} --tenant ${session.handle.tenant} lists the actor's tools\n`;
  }
  if (error.details.rule === 'permissions.execute: ask') return 'hint: answer y to the question, or pass --yes to approve execute tools\n';
  const serverHint = cliHint(error, session.runtime.config.source);
  if (serverHint !== undefined) return `hint: ${serverHint}\n`;
  return '';
}
