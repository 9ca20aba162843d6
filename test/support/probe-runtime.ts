/**
 * A runtime over the confine probe server (test/support/confine-probe-server.mjs), for the tests of
 * what a call does to a sandbox: before each test a fresh temp folder holding `project/` (with a
 * README.md) and, when asked, `outside/`; after it the runtime shut down and the folder removed.
 * Every runtime event is kept in `events`.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach } from 'vitest';
import { createRuntime, type Runtime } from '../../src/runtime/create-runtime.js';
import type { RuntimeEvent } from '../../src/runtime/runtime-events.js';

export const PROBE = fileURLToPath(new URL('./confine-probe-server.mjs', import.meta.url));

export interface ProbeRuntime {
  readonly work: string;
  readonly project: string;
  /** `work/outside`: made before each test only with `{ outside: true }`. */
  readonly outside: string;
  /** The runtime `start()` made (for this test). */
  readonly runtime: Runtime;
  /** Every event the runtime published since `start()`. */
  readonly events: RuntimeEvent[];
  /** A runtime with the probe server as `probe`, one skill `probe`, and `actors` allowed to execute it. */
  start(options: { confine: boolean; actors: readonly string[] }): Promise<void>;
}

/** Registers the hooks in the calling test file; call once at its top level. */
export function probeRuntime(prefix: string, options: { outside?: boolean } = {}): ProbeRuntime {
  let work = '';
  let runtime: Runtime | undefined;
  let events: RuntimeEvent[] = [];
  beforeEach(() => {
    work = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    mkdirSync(join(work, 'project'));
    if (options.outside) mkdirSync(join(work, 'outside'));
    writeFileSync(join(work, 'project', 'README.md'), 'hi\n');
  });
  afterEach(async () => {
    await runtime?.shutdown();
    runtime = undefined;
    rmSync(work, { recursive: true, force: true });
  });
  return {
    get work() {
      return work;
    },
    get project() {
      return join(work, 'project');
    },
    get outside() {
      return join(work, 'outside');
    },
    get runtime() {
      if (!runtime) throw new Error('start() the probe runtime first');
      return runtime;
    },
    get events() {
      return events;
    },
    async start({ confine, actors }) {
      runtime = await createRuntime({
        config: {
          servers: { probe: { command: process.execPath, args: [PROBE], confine } },
          skills: { probe: { mcp_servers: ['probe'] } },
          actors: Object.fromEntries(actors.map((name) => [name, { skills: ['probe'], permissions: { execute: 'allow' as const } }])),
        },
      });
      events = [];
      runtime.events$.subscribe((event) => events.push(event));
    },
  };
}
