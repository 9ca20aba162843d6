/**
 * A fake `connectServer` for unit tests of the machine and McpClient: a real SDK `Server` wired to a
 * real SDK `Client` through `InMemoryTransport`, so the protocol is real and only the process is
 * not. Each start attempt follows the next scripted behaviour; `crash()` ends the live connection
 * as a dying process would.
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolRequestSchema, ListToolsRequestSchema, PingRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { fromCallback } from 'xstate';
import { ClientConnection } from '../../src/server/client-connection.js';
import { handshake } from '../../src/server/connect-client.js';
import { ErrorCode } from '../../src/errors/codes.js';
import { McpActorsError } from '../../src/errors/mcp-actors-error.js';
import type { ConnectInput } from '../../src/server/server-io.js';
import type { ServerEvent } from '../../src/server/server-machine.js';
import { lowLevelServer, type LowLevelServer } from './low-level-server.js';

/** What the next start attempt does: succeed, fail the handshake, never answer, or fail to spawn. */
export type StartBehaviour = 'ok' | 'fail' | 'hang' | 'spawn-fail';

export class FakeServers {
  /** Behaviours for the next attempts, used in order; `ok` once the script runs out. */
  readonly script: StartBehaviour[] = [];
  spawns = 0;
  /** How many handles were killed (a contract breach) rather than closed. */
  kills = 0;
  /** Servers created from now on never answer ping (a hung server). */
  pingHang = false;
  /** How long tools/list takes to answer (a slow server). */
  listDelayMs = 0;
  readonly spawnTimes: number[] = [];
  private live = new Set<{ close(): Promise<void> }>();
  private current: { connection: ClientConnection; serverSide: InMemoryTransport } | undefined;

  constructor(private readonly now: () => number = () => Date.now()) {}

  /** Handles spawned and not yet closed: "processes" still alive. */
  get liveCount(): number {
    return this.live.size;
  }

  /** Ends the running connection without anyone asking: a crash (or, with normal, exit 0). */
  crash(normal = false): boolean {
    const current = this.current;
    if (!current) return false;
    this.current = undefined;
    current.connection.markEnded({
      normal,
      error: new McpActorsError(ErrorCode.SERVER_CRASHED, normal ? 'fake server exited with code 0' : 'fake server crashed'),
    });
    void current.serverSide.close();
    return true;
  }

  readonly connectServer = fromCallback<ServerEvent, ConnectInput>(({ input, sendBack }) => {
    const behaviour = this.script.shift() ?? 'ok';
    this.spawns += 1;
    this.spawnTimes.push(this.now());
    let active = true;
    let handedOver = false;
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    let closed: Promise<void> | undefined;
    const handle = {
      pid: 4242,
      close: () =>
        (closed ??= (async () => {
          this.live.delete(handle);
          if (this.current?.serverSide === serverSide) this.current = undefined;
          await clientSide.close().catch(() => undefined);
        })()),
      kill: () => {
        this.kills += 1;
        return handle.close();
      },
    };
    this.live.add(handle);
    sendBack({ type: 'server.spawned', handle });
    if (behaviour === 'spawn-fail') {
      this.live.delete(handle);
      queueMicrotask(() =>
        sendBack({ type: 'server.startFailed', retryable: false, error: new McpActorsError(ErrorCode.SPAWN_FAILED, 'no such command') }),
      );
      return () => undefined;
    }
    if (behaviour === 'fail') {
      queueMicrotask(() => {
        if (active)
          sendBack({
            type: 'server.startFailed',
            retryable: true,
            error: new McpActorsError(ErrorCode.SERVER_EXITED, 'fake exited on start'),
          });
      });
      return () => {
        active = false;
        void handle.close();
      };
    }
    if (behaviour === 'hang') {
      return () => {
        active = false;
        void handle.close();
      };
    }
    const server = this.createServer();
    // A named function, not an IIFE: `active` may turn false while it awaits.
    const connect = async () => {
      await server.connect(serverSide);
      let connection: ClientConnection | undefined = undefined;
      clientSide.onclose = () => {
        connection?.markEnded({ normal: false, error: new McpActorsError(ErrorCode.SERVER_CRASHED, 'fake connection closed') });
      };
      connection = await handshake({
        config: input.config,
        transport: clientSide,
        pid: 4242,
        closeTransport: handle.close,
        killTransport: handle.kill,
      });
      if (!active) return;
      handedOver = true;
      this.current = { connection, serverSide };
      sendBack({ type: 'server.connected', connection });
    };
    void connect();
    return () => {
      active = false;
      if (!handedOver) void handle.close();
    };
  });

  private createServer(): LowLevelServer {
    const server = lowLevelServer({ name: 'fake', version: '1.0.0' }, { tools: { listChanged: true } });
    if (this.pingHang) server.setRequestHandler(PingRequestSchema, () => new Promise<never>(() => undefined));
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      if (this.listDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.listDelayMs));
      return {
        tools: [
          { name: 'echo', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } },
          { name: 'sleep', inputSchema: { type: 'object', properties: { ms: { type: 'number' } } } },
        ],
      };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const args = request.params.arguments ?? {};
      if (request.params.name === 'sleep') {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Number(args.ms));
          extra.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        return { content: [{ type: 'text', text: `slept ${String(args.ms)}` }] };
      }
      return { content: [{ type: 'text', text: String(args.message) }] };
    });
    return server;
  }
}
