/**
 * The statechart pictures of docs/statecharts.md are generated from the machine definitions. This test fails
 * when they drift; `UPDATE_DIAGRAMS=1 npx vitest run test/unit/statecharts/diagrams.test.ts` rewrites them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { actorMachine } from '../../../src/runtime/actor-machine.js';
import { runtimeMachine } from '../../../src/runtime/runtime-machine.js';
import { serverSupervisor } from '../../../src/runtime/server-supervisor.js';
import { serverMachine } from '../../../src/server/server-machine.js';
import { toolCallMachine } from '../../../src/tool-call/tool-call-machine.js';
import { toMermaid } from '../../../src/inspector/to-mermaid.js';

const README = new URL('../../../docs/statecharts.md', import.meta.url);
const machines: Record<string, AnyStateMachine> = {
  'server-machine': serverMachine,
  'tool-call-machine': toolCallMachine,
  'actor-machine': actorMachine,
  'runtime-machine': runtimeMachine,
  'server-supervisor': serverSupervisor,
};

describe('statechart diagrams in docs/statecharts.md', () => {
  for (const [name, machine] of Object.entries(machines)) {
    it(`shows ${name} as it is defined`, () => {
      const readme = readFileSync(README, 'utf8');
      const open = `<!-- diagram:${name} -->`;
      const close = `<!-- /diagram:${name} -->`;
      const start = readme.indexOf(open);
      const end = readme.indexOf(close);
      expect(start, `docs/statecharts.md needs a ${open} ... ${close} block`).toBeGreaterThanOrEqual(0);
      const block = `${open}\n\`\`\`mermaid\n${toMermaid(machine)}\n\`\`\`\n${close}`;
      if (process.env.UPDATE_DIAGRAMS) {
        writeFileSync(README, readme.slice(0, start) + block + readme.slice(end + close.length));
        return;
      }
      expect(readme.slice(start, end + close.length)).toBe(block);
    });
  }

  it('draws states, nesting, guards and timers', () => {
    const drawing = toMermaid(serverMachine);
    expect(drawing).toContain('[*] --> stopped');
    expect(drawing).toContain('state starting {');
    expect(drawing).toContain('starting_deciding --> error: always [mustGiveUp]');
    expect(drawing).toContain('running_idle --> stopping: after idleTimeout [idleStopEnabled]');
    // A transition that only runs actions keeps its state: drawn as a self-transition.
    expect(drawing).toMatch(/\n\s*(\w+) --> \1: /);
  });

  it('draws the server supervisor, whose work is all in its root, one self-transition per event and guard', () => {
    const drawing = toMermaid(serverSupervisor);
    expect(drawing).toContain('serverSupervisor --> serverSupervisor: server.acquire [isServerHeld]');
    expect(drawing).toContain('serverSupervisor --> serverSupervisor: server.release [isLastHolder]');
    expect(drawing).toContain('serverSupervisor --> serverSupervisor: server.retire [isLastToRetire]');
  });
});
