/**
 * Test helpers for the supervised server: wait for a state with a deadline, and a fake clock that
 * drives the server machine's timers and timestamps together.
 */
import { SimulatedClock, waitFor } from 'xstate';
import type { McpClient } from '../client/mcp-client.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import { publicStateOf, type ServerClock } from '../server/server-machine.js';
import type { ServerState } from '../server/server-states.js';
import { seededRandom } from './faulty-transport.js';

/**
 * Resolves once the server is in `state`; rejects with REQUEST_TIMEOUT after `timeoutMs`.
 *
 * @example
 * await waitForServerState(client, 'ERROR', 5_000);
 */
export async function waitForServerState(client: McpClient, state: ServerState, timeoutMs = 10_000): Promise<void> {
  try {
    await waitFor(client.actor, (snapshot) => publicStateOf(snapshot) === state, { timeout: timeoutMs });
  } catch (cause) {
    throw new McpActorsError(
      ErrorCode.REQUEST_TIMEOUT,
      `server "${client.name}" did not reach ${state} within ${timeoutMs} ms (it is ${client.state}); raise timeoutMs if it is slow`,
      { cause, details: { server: client.name, expected: state, actual: client.state, timeoutMs } },
    );
  }
}

export interface FakeServerClock {
  /** For `createActor(machine, { clock })`: the machine's `after` timers run on it. */
  readonly simulated: SimulatedClock;
  /** For the machine's input (`{ config, clock }`) or `new McpClient(config, { clock })`: timestamps and jitter. */
  readonly clock: ServerClock;
  /** Moves time on: timers due meanwhile fire, and `clock.now()` moves with them. */
  advance(ms: number): void;
}

/**
 * A fake clock for the server machine: XState's `SimulatedClock` does not fake `Date.now()`, and
 * restart windows need timestamps, so this keeps both in step (and seeds the jitter).
 *
 * @example
 * const fake = fakeServerClock();
 * const actor = createActor(serverMachine.provide({ actors }), { clock: fake.simulated, input: { config, clock: fake.clock } });
 * fake.advance(200); // the restart backoff elapses
 */
export function fakeServerClock(options: { start?: number; seed?: number } = {}): FakeServerClock {
  const simulated = new SimulatedClock();
  const start = options.start ?? 0;
  simulated.set(start);
  const random = seededRandom(options.seed ?? 1);
  return {
    simulated,
    clock: { now: () => simulated.now(), random },
    advance: (ms: number) => simulated.increment(ms),
  };
}
