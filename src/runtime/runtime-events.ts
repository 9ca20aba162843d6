/** The typed events a runtime publishes on `events$`: the supervision tree and the audit trail. */
import type { FileChange } from '../tool-call/tool-call-io.js';
import type { ServerState } from '../server/server-states.js';
import type { ToolCategory } from '../domain/tool-category.js';
import type { LogLevel } from '../domain/define-tool.js';
import type { CallStatus } from '../tool-call/tool-call-io.js';

export type RuntimeEvent =
  | { readonly type: 'runtime.error'; readonly message: string; readonly code: string | undefined }
  | {
      readonly type: 'server.state';
      readonly server: string;
      readonly tenant: string;
      readonly sandbox: string | undefined;
      readonly state: ServerState;
      readonly pid: number | undefined;
    }
  | {
      readonly type: 'server.restarted';
      readonly server: string;
      readonly tenant: string;
      readonly restarts: number;
      readonly error: string | undefined;
    }
  | { readonly type: 'actor.state'; readonly actor: string; readonly tenant: string; readonly state: string }
  | {
      readonly type: 'call.started';
      readonly callId: string;
      readonly actor: string;
      readonly tenant: string;
      readonly tool: string;
      readonly category: ToolCategory;
    }
  | ({ readonly type: 'call.ended' } & AuditRecord)
  | {
      readonly type: 'capability.violation';
      readonly callId: string;
      readonly actor: string;
      readonly tenant: string;
      readonly tool: string;
      readonly changes: readonly FileChange[];
      readonly message: string;
    }
  | {
      /** A call left links in the sandbox that resolve outside it (an unconfined server's escape, best effort). */
      readonly type: 'sandbox.escape';
      readonly callId: string;
      readonly actor: string;
      readonly tenant: string;
      readonly tool: string;
      readonly links: readonly { readonly path: string; readonly target: string; readonly resolved: string }[];
      readonly message: string;
    }
  | {
      /** A domain tool's `ctx.progress(...)` during an in-process call. */
      readonly type: 'call.progress';
      readonly callId: string;
      readonly actor: string;
      readonly tenant: string;
      readonly tool: string;
      readonly progress: number;
      readonly total?: number;
      readonly message?: string;
    }
  | {
      /** A domain tool's `ctx.log(...)` during an in-process call. */
      readonly type: 'call.log';
      readonly callId: string;
      readonly actor: string;
      readonly tenant: string;
      readonly tool: string;
      readonly level: LogLevel;
      readonly data: unknown;
      readonly logger?: string;
    }
  | {
      readonly type: 'permission.denied';
      readonly callId: string;
      readonly actor: string;
      readonly tenant: string;
      readonly tool: string;
      readonly category: ToolCategory;
      readonly rule: string;
      readonly message: string;
    };

/** One call, for the audit trail. */
export interface AuditRecord {
  readonly callId: string;
  readonly actor: string;
  readonly tenant: string;
  readonly tool: string;
  /** Undefined when the call never reached a tool (unknown tool, inactive actor). */
  readonly category: ToolCategory | undefined;
  readonly status: CallStatus;
  readonly durationMs: number;
  readonly checkpointId: string | undefined;
  readonly errorCode: string | undefined;
}
