/**
 * McpClients over `FakeServers` on fake time, for the unit tests of the client and the supervisor:
 * a fresh set of fakes before each test, and after it every client disposed (time run on so the
 * stops finish) and no fake connection left alive.
 */
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { McpClient } from '../../src/client/mcp-client.js';
import type { McpServerConfig } from '../../src/config/server-config.js';
import { FakeServers } from './fake-server.js';

const base: McpServerConfig = {
  name: 'fake',
  command: 'fake-server',
  backoff: { initialMs: 100, maxMs: 1_000, factor: 2, jitter: 0 },
  startTimeoutMs: 1_000,
  callTimeoutMs: 10_000,
};

export interface FakeClients {
  /** This test's fake servers (a fresh set before each test). */
  readonly servers: FakeServers;
  /** A client of the base config with `overrides`, disposed after the test. */
  readonly client: (overrides?: Partial<McpServerConfig>) => McpClient;
  /** Runs fake time on by `ms` (0: only what is due now), settling promises between timers. */
  readonly flush: (ms?: number) => Promise<void>;
  /** Runs fake time on by `ms`, then awaits `promise` (one started before: a start, a stop, a call). */
  readonly flushed: <T>(promise: Promise<T>, ms?: number) => Promise<T>;
  /** `start()`, with time run on until it resolves. */
  readonly started: (client: McpClient) => Promise<void>;
}

/** Registers the hooks in the calling test file; call once at its top level. */
export function useFakeClients(): FakeClients {
  let fakes = new FakeServers();
  let clients: McpClient[] = [];
  const flush = async (ms = 0): Promise<void> => {
    await vi.advanceTimersByTimeAsync(ms);
  };
  const flushed = async <T>(promise: Promise<T>, ms = 0): Promise<T> => {
    await flush(ms);
    return promise;
  };
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    fakes = new FakeServers();
    clients = [];
  });
  afterEach(async () => {
    const disposing = Promise.all(clients.map((c) => c.dispose()));
    await flush(10_000);
    await disposing;
    expect(fakes.liveCount).toBe(0);
    vi.useRealTimers();
  });
  return {
    get servers() {
      return fakes;
    },
    client(overrides = {}) {
      const created = new McpClient({ ...base, ...overrides }, { actors: { connectServer: fakes.connectServer } });
      clients.push(created);
      return created;
    },
    flush,
    flushed,
    started: (client) => flushed(client.start()),
  };
}
