/**
 * A shutdown overtakes an activation whose server is in its restart loop: the server is stopped
 * where it is, the activation ends, and the loop does not run to ERROR first.
 */
import { firstValueFrom, filter } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import type { RuntimeEvent } from '../../src/runtime/runtime-events.js';
import { fixtureArgs, fixtureServerPath } from '../../src/testing/fixture.js';
import { isMcpActorsError } from '../../src/errors/index.js';

describe('runtime.shutdown() during an activation', () => {
  it('stops a server that is still restarting instead of waiting out its restart budget', async () => {
    const env = process.env.MCP_ACTORS_PID_LOG ? { MCP_ACTORS_PID_LOG: process.env.MCP_ACTORS_PID_LOG } : {};
    const runtime = await createRuntime({
      config: {
        servers: {
          broken: { command: process.execPath, args: [fixtureServerPath(), ...fixtureArgs({ exitOnStart: 3 })], env, max_restarts: 5 },
        },
        skills: { bad: { mcp_servers: [{ server: 'broken', required: true }] } },
        actors: { stuck: { skills: ['bad'] } },
      },
    });
    const events: RuntimeEvent[] = [];
    runtime.events$.subscribe((event) => events.push(event));
    const restarted = firstValueFrom(runtime.events$.pipe(filter((event) => event.type === 'server.restarted')));
    const activation = runtime.activate('stuck', { tenant: 'acme' });
    const settled = activation.then(
      () => 'activated',
      (error: unknown) => (isMcpActorsError(error) ? error.code : 'other'),
    );
    await restarted;
    await runtime.shutdown();
    expect(await settled).toBe('ACTIVATION_FAILED');
    const states = events.flatMap((event) => (event.type === 'server.state' ? [event.state] : []));
    expect(states).not.toContain('ERROR');
    expect(states.at(-1)).toBe('STOPPED');
    const restarts = events.filter((event) => event.type === 'server.restarted').length;
    expect(restarts).toBeGreaterThanOrEqual(1);
    expect(restarts).toBeLessThan(5);
  });
});
