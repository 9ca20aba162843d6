/**
 * A Transport around the SDK's HTTP client transports that adds what supervision needs:
 *
 * - an authorization-code flow started by the SDK (a 401, or a 403 `insufficient_scope` step-up)
 *   is finished with the provider's code and the message sent again — once per message, so a
 *   server that keeps asking for more fails clearly instead of looping;
 * - a 404 to a request that carries a session id means the session expired, and a refused or
 *   dropped connection means the server went away: either ends the connection, so the server
 *   machine starts a fresh session under its backoff and intensity rules.
 */
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { authStatusOf } from './auth-error.js';
import { completesAuthorization, type OAuthClientProvider } from './server-auth.js';
import { withDeadline } from '../timing/deadline.js';

/** What the SDK's `StreamableHTTPClientTransport` and `SSEClientTransport` have in common. */
export interface HttpClientTransport extends Transport {
  finishAuth(authorizationCode: string): Promise<void>;
}

/** Why the wrapped transport gave up on its session. */
export type SessionLoss =
  | { readonly kind: 'session-expired' }
  | { readonly kind: 'unauthorized'; readonly error: unknown }
  | { readonly kind: 'unreachable'; readonly error: unknown };

export class AuthorizingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  private completing: Promise<void> | undefined;
  private started = false;
  private sending = 0;

  constructor(
    readonly inner: HttpClientTransport,
    private readonly provider: OAuthClientProvider | undefined,
    private readonly onSessionLost: (loss: SessionLoss) => void,
  ) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => {
      // The SDK reports a failed send here too, before it throws: `send` judges those itself.
      if (this.sending === 0) this.noticeLoss(error, true);
      this.onerror?.(error);
    };
    inner.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => this.onmessage?.(message, extra);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  async start(): Promise<void> {
    await this.inner.start();
    this.started = true;
  }

  /** Ends the session where the server keeps one (streamable HTTP: DELETE), then closes. */
  async close(): Promise<void> {
    const terminate = (this.inner as { terminateSession?: () => Promise<void> }).terminateSession;
    if (this.started && this.inner.sessionId !== undefined && typeof terminate === 'function') {
      await withDeadline(
        terminate.call(this.inner).catch(() => undefined),
        { ms: SESSION_END_WAIT_MS, onTimeout: () => undefined },
      );
    }
    await this.inner.close();
  }

  /** Finishes an authorization the SDK started outside `send` (the SSE transport's GET). */
  async finishPendingAuthorization(): Promise<boolean> {
    const code = this.provider && completesAuthorization(this.provider) ? this.provider.takeAuthorizationCode() : undefined;
    if (!code) return false;
    await this.inner.finishAuth(await code);
    return true;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.sending += 1;
    try {
      await this.inner.send(message, options);
    } catch (error) {
      if (error instanceof UnauthorizedError && (await this.completeAuthorization())) {
        await this.sendWatched(message, options);
        return;
      }
      this.noticeLoss(error);
      throw error;
    } finally {
      this.sending -= 1;
    }
  }

  private async sendWatched(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    try {
      await this.inner.send(message, options);
    } catch (error) {
      this.noticeLoss(error);
      throw error;
    }
  }

  /** One exchange of the code at a time: concurrent sends that were refused together wait for it. */
  private async completeAuthorization(): Promise<boolean> {
    if (this.completing) {
      await this.completing.catch(() => undefined);
      return true;
    }
    const code = this.provider && completesAuthorization(this.provider) ? this.provider.takeAuthorizationCode() : undefined;
    if (!code) return false;
    const completing = (async () => this.inner.finishAuth(await code))();
    this.completing = completing;
    try {
      await completing;
    } finally {
      this.completing = undefined;
    }
    return true;
  }

  /**
   * A 404 to a request with a session id is the spec's "session expired"; a restarted server that
   * has not been initialized answers the standalone GET stream with 400 instead.
   */
  private noticeLoss(error: unknown, stream = false): void {
    if (!this.started) return;
    const expiredCodes = stream ? [400, 404] : [404];
    if (error instanceof StreamableHTTPError && expiredCodes.includes(error.code ?? 0) && this.inner.sessionId !== undefined) {
      this.onSessionLost({ kind: 'session-expired' });
    } else if (authStatusOf(error) === 401) {
      // The provider could not refresh: a fresh session will say AUTH_REQUIRED and stop there.
      this.onSessionLost({ kind: 'unauthorized', error });
    } else if (isNetworkFailure(error)) {
      this.onSessionLost({ kind: 'unreachable', error });
    }
  }
}

/** How long a close waits for the server to acknowledge the end of its session. */
export const SESSION_END_WAIT_MS = 2_000;

/** fetch's "could not reach": a TypeError whose cause is a socket error (ECONNREFUSED, ECONNRESET, ...). */
export function isNetworkFailure(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  const cause = (error as { cause?: unknown }).cause;
  const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  return (
    typeof code === 'string' &&
    /^(ECONNREFUSED|ECONNRESET|EPIPE|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|UND_ERR_SOCKET|UND_ERR_CLOSED)$/.test(code)
  );
}
