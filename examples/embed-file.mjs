// Embedding mcp-actors with an agents.yaml: an actor's tools, a call in a sandbox, its change set,
// a rollback, the diff applied. Run from the package root: node examples/embed-file.mjs
import { createRuntime } from 'mcp-actors';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const project = mkdtempSync(join(tmpdir(), 'project-')); // any folder; a git repository gets a worktree
writeFileSync(join(project, 'a.md'), '# a\n');

const runtime = await createRuntime({
  file: fileURLToPath(new URL('agents.yaml', import.meta.url)), // or config: { servers, tools, skills, actors } as objects
  approve: async ({ tool }) => tool.name === 'files/move_file', // ask your user here
  inspect: false, // true: the Stately inspector on 127.0.0.1 (or any XState observer)
});
try {
  runtime.events$.subscribe((event) => {
    // server states, restarts, calls, denials, violations
    if (event.type === 'call.ended') console.log(`${event.tool}: ${event.status}`);
  });
  const sandbox = await runtime.createSandbox(project);
  const assistant = await runtime.activate('assistant', { tenant: 'acme', sandbox });

  console.log(
    assistant
      .tools()
      .map((tool) => `${tool.name} (${tool.category})`)
      .join(', '),
  );
  const outcome = await assistant.call('files/move_file', { source: 'a.md', destination: 'b.md' });
  // outcome: { status: 'committed' | 'rolled-back' | 'failed' | 'rejected', result, changes, checkpointId, error, note }

  console.log(await assistant.changes()); // the sandbox's change set (added/modified/deleted, hashes)
  await assistant.rollback(outcome.checkpointId); // back to before that call
  console.log(await sandbox.diff()); // empty again
  await sandbox.applyToHost(); // refuses with APPLY_CONFLICT if the project changed meanwhile
  await assistant.deactivate();
} finally {
  await runtime.shutdown(); // afterwards no process the runtime spawned is alive
}
