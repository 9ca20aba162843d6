/**
 * One actor for the framework bridge tests: a real runtime, a real sandbox over a git project, and
 * an in-process domain server `notes` whose tools read and write files by path (the runtime
 * rewrites the paths into the sandbox) — a read tool answering text and an image, a write tool
 * (execute: allowed, checkpointed), a restricted tool the actor may not call, and a write tool that
 * writes and then fails (rolled back).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineServer } from '../../src/domain/define-server.js';
import { defineTool } from '../../src/domain/define-tool.js';
import { toolContent } from '../../src/domain/tool-content.js';
import { createRuntime, type Runtime } from '../../src/runtime/create-runtime.js';
import type { ActorHandle } from '../../src/runtime/actor-handle.js';
import type { RuntimeEvent } from '../../src/runtime/runtime-events.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { createGitProject } from './git-project.js';

/** A 1x1 PNG. */
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** What the model APIs accept as a function name. */
export const MODEL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const pathInput = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } as const;
const writeInput = {
  type: 'object',
  properties: { path: { type: 'string' }, content: { type: 'string' } },
  required: ['path', 'content'],
} as const;

export interface NotesActor {
  readonly runtime: Runtime;
  readonly sandbox: Sandbox;
  readonly actor: ActorHandle;
  readonly project: string;
  readonly events: RuntimeEvent[];
  /** Times the restricted tool actually ran (it never should). */
  purges(): number;
  close(): Promise<void>;
}

export async function openNotesActor(): Promise<NotesActor> {
  let purged = 0;
  const notes = defineServer({
    name: 'notes',
    tools: [
      defineTool({
        name: 'notes_read',
        domain: 'notes',
        category: 'read',
        description: 'Reads a note, with its picture',
        input: pathInput,
        call: (params: { path: string }) =>
          toolContent([
            { type: 'text', text: readFileSync(params.path, 'utf8') },
            { type: 'image', data: PNG, mimeType: 'image/png' },
          ]),
      }),
      defineTool({
        name: 'notes_write',
        domain: 'notes',
        category: 'execute',
        description: 'Writes a note',
        input: writeInput,
        call: (params: { path: string; content: string }) => {
          writeFileSync(params.path, params.content);
          return `wrote ${params.content.length} characters`;
        },
      }),
      defineTool({
        name: 'notes_write_then_fail',
        domain: 'notes',
        category: 'execute',
        description: 'Writes a note, then fails',
        input: writeInput,
        call: (params: { path: string; content: string }) => {
          writeFileSync(params.path, params.content);
          throw new Error('the disk quota ran out');
        },
      }),
      defineTool({
        name: 'notes_purge',
        domain: 'notes',
        category: 'restricted',
        description: 'Deletes every note',
        input: { type: 'object', properties: {} },
        call: () => {
          purged += 1;
          return 'purged';
        },
      }),
    ],
  });
  const project = createGitProject({ 'todo.md': 'buy milk\n' });
  const runtime = await createRuntime({
    config: {
      servers: {},
      skills: { notes: { mcp_servers: ['notes'] } },
      actors: { editor: { skills: ['notes'], permissions: { execute: 'allow' } } },
    },
    domainServers: [notes],
    callTimeoutMs: 10_000,
  });
  const events: RuntimeEvent[] = [];
  runtime.events$.subscribe((event) => events.push(event));
  const sandbox = await runtime.createSandbox(project);
  const actor = await runtime.activate('editor', { tenant: 'acme', sandbox });
  return {
    runtime,
    sandbox,
    actor,
    project,
    events,
    purges: () => purged,
    close: async () => {
      await runtime.shutdown();
      rmSync(project, { recursive: true, force: true });
    },
  };
}

/** The sandbox's copy of a project file. */
export function sandboxFile(notes: NotesActor, path: string): string {
  return readFileSync(join(notes.sandbox.root, path), 'utf8');
}
