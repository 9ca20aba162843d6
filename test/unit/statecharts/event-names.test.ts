/**
 * One event name, one meaning: the server machine's events (what McpClient tells its statechart)
 * and the runtime's public events (`runtime.events$`) share no name. Before, `call.started` and
 * `call.ended` were both a runtime event (a tool call's audit) and a server-machine event (a
 * connection's first call began, its last one ended); this file did not compile.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { RuntimeEvent, ServerEvent } from '../../../src/index.js';
import { serverMachine } from '../../../src/server/server-machine.js';

describe('event names', () => {
  it('the server machine and the runtime events share none', () => {
    expectTypeOf<Extract<ServerEvent['type'], RuntimeEvent['type']>>().toEqualTypeOf<never>();
    const accepted = new Set<string>(serverMachine.events);
    expect(['activity.began', 'activity.ended'].every((type) => accepted.has(type))).toBe(true);
    expect(['call.started', 'call.ended'].some((type) => accepted.has(type))).toBe(false);
  });
});
