/**
 * `agents status --watch` as an operator sees it: in a pseudo-terminal (util-linux `script`) the
 * table is redrawn in place and shows a crash and the recovery live; Ctrl+C stops every server and
 * exits 130 with no process left. Piped, it prints one plain line per change and no escape codes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { agentsProject, fixtureServer, spawnAgents } from '../support/agents-cli.js';
import { expectAllGone } from '../support/processes.js';
import { waitUntil } from '../support/wait.js';

const project = agentsProject('mcp-actors-watch-', () => ({
  servers: { fixture: fixtureServer() },
  skills: { ops: { mcp_servers: ['fixture'] } },
  actors: { helper: { skills: ['ops'] } },
}));

const runs: ReturnType<typeof spawnAgents>[] = [];
const watch = (terminal: boolean) => {
  const run = spawnAgents(['status', 'helper', '--watch'], { cwd: project.dir, terminal });
  runs.push(run);
  return run;
};

// A test that failed before its Ctrl+C still stops what it started (Ctrl+C, as an operator would).
afterEach(async () => {
  for (const run of runs.splice(0)) {
    if (run.child.exitCode !== null || run.child.signalCode !== null) continue;
    run.interrupt();
    await Promise.race([run.exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  }
});

const pidsOf = (text: string): number[] => [...text.matchAll(/RUNNING\S*\s+(\d+)/g)].map((m) => Number(m[1]));

describe('agents status --watch', () => {
  it('in a terminal shows a crash and the recovery live, and Ctrl+C stops everything and exits 130', async () => {
    const run = watch(true);
    await waitUntil(() => pidsOf(run.output()).length > 0, 'the table to show the server RUNNING', 20_000);
    const first = pidsOf(run.output())[0]!;
    expect(run.output()).toContain('\u001b['); // drawn in place, with colour
    // An 80-column terminal: the table is cut to its width (the last columns end in …), never wrapped.
    expect(run.output()).toMatch(/SERVER +TENANT +STATE +PID +UPTIME +RESTARTS +NEXT RESTART +CALLS +LAST E/);
    process.kill(first, 'SIGKILL');
    await waitUntil(() => pidsOf(run.output()).some((pid) => pid !== first), 'the table to show a new pid', 20_000);
    const second = pidsOf(run.output()).find((pid) => pid !== first)!;
    expect(run.output()).toMatch(new RegExp(`RUNNING\\S*\\s+${second}\\s+\\S+( ms| s)?\\s+1\\s`)); // one restart
    run.interrupt();
    expect(await run.exited).toBe(130);
    await expectAllGone([first, second]);
  }, 60_000);

  it('piped prints one plain line per change, with no escape codes', async () => {
    const run = watch(false);
    await waitUntil(() => /fixture@local RUNNING pid \d+/.test(run.output()), 'a RUNNING line', 20_000);
    const pid = Number(/RUNNING pid (\d+)/.exec(run.output())![1]);
    run.interrupt();
    expect(await run.exited).toBe(130);
    expect(run.output()).not.toContain('\u001b');
    expect(run.output()).toMatch(/^\d\d:\d\d:\d\d fixture@local STARTING$/m);
    expect(run.output()).toMatch(/fixture@local STOPPED$/m);
    await expectAllGone([pid]);
  }, 60_000);
});
