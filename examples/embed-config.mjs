// Embedding mcp-actors with the configuration given as objects: createRuntime({ config }) takes the
// keys of agents.yaml (snake_case, or camelCase) — no file needed.
//
//   npm install mcp-actors @modelcontextprotocol/server-filesystem
//   node node_modules/mcp-actors/examples/embed-config.mjs
//
// It opens a sandbox of a throwaway project, lets an actor read and write there (asking before a
// write, and saying why the tool counts as writing), shows the change set, and rolls it back.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRuntime } from 'mcp-actors';

// The filesystem reference server, from wherever npm installed it.
const require = createRequire(import.meta.url);
const filesystemServer = join(dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist/index.js');

const project = mkdtempSync(join(tmpdir(), 'embed-config-'));
writeFileSync(join(project, 'notes.md'), '# notes\n');

const runtime = await createRuntime({
  config: {
    servers: {
      // ${SANDBOX_ROOT} is filled in by the runtime: the server sees only the sandbox.
      files: { command: process.execPath, args: [filesystemServer, '${SANDBOX_ROOT}'] },
    },
    skills: {
      editing: { mcp_servers: [{ server: 'files', include: ['read_text_file', 'directory_tree', 'write_file'] }] },
    },
    actors: {
      editor: { skills: ['editing'], permissions: { execute: 'ask' } },
    },
  },
  // Asked before every execute tool; `because` says why the tool counts as writing.
  approve: ({ tool, because, destructive }) => {
    console.log(`approve ${tool.name}${destructive ? ' (destructive)' : ''}? yes — it counts as writing because of ${because}`);
    return true;
  },
});
try {
  const sandbox = await runtime.createSandbox(project);
  const editor = await runtime.activate('editor', { tenant: 'acme', sandbox });
  console.log(
    editor
      .tools()
      .map((tool) => `${tool.name} (${tool.category})`)
      .join(', '),
  );

  const read = await editor.call('files/read_text_file', { path: 'notes.md' }); // a read tool: nobody is asked
  for (const block of read.result?.content ?? []) if (block.type === 'text') console.log(`notes.md says: ${block.text.trim()}`);

  const write = await editor.call('files/write_file', { path: 'todo.md', content: '- ship it\n' });
  console.log(`write_file: ${write.status}`, await editor.changes());

  await editor.rollback(write.checkpointId); // the sandbox as it was before the write
  console.log(`after rollback: ${(await editor.changes()).length} changes`);
} finally {
  await runtime.shutdown(); // afterwards no process the runtime spawned is alive
  rmSync(project, { recursive: true, force: true });
}
