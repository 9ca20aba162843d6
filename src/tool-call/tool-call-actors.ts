/** The tool-call machine's actors, each a thin wrapper over one of the plain call steps. */
import { fromCallback, fromPromise } from 'xstate';
import type { Authorization, CommitReport, RollbackReport, ToolCallInput } from './tool-call-io.js';
import type { ToolCallEvent } from '../machines/tool-call-machine.js';
import type { ToolResult } from '../registry/tool-descriptor.js';
import type { ToolCallSteps } from './tool-call-steps.js';

type WithArgs = { input: ToolCallInput; args: Readonly<Record<string, unknown>> };
type WithCheckpoint = { input: ToolCallInput; checkpointId: string | undefined };

export function toolCallActors(steps: ToolCallSteps) {
  return {
    authorizeCall: fromPromise<Authorization, ToolCallInput>(async ({ input }) => steps.authorize(input)),
    holdLock: fromCallback<ToolCallEvent, { mode: 'read' | 'write' }>(({ input, sendBack }) => {
      const controller = new AbortController();
      let release: (() => void) | undefined;
      steps.acquireLock(input.mode, controller.signal).then(
        (releaseLock) => {
          if (controller.signal.aborted) return releaseLock();
          release = releaseLock;
          sendBack({ type: 'lock.acquired' });
        },
        (error: unknown) => {
          if (!controller.signal.aborted) sendBack({ type: 'lock.failed', error });
        },
      );
      return () => {
        controller.abort();
        release?.();
      };
    }),
    rewriteArgs: fromPromise<Record<string, unknown>, WithArgs>(({ input }) => steps.rewriteArgs(input.input, input.args)),
    takeCheckpoint: fromPromise<string, { input: ToolCallInput }>(({ input }) => steps.checkpoint(input.input)),
    // async: a step that throws synchronously becomes a rejection (onError), as on the fast path.
    invokeTool: fromPromise<ToolResult, WithArgs>(async ({ input, signal }) => steps.invoke(input.input, input.args, signal)),
    rewriteResult: fromPromise<ToolResult, { input: ToolCallInput; result: ToolResult }>(({ input }) =>
      steps.rewriteResult(input.input, input.result),
    ),
    commitCall: fromPromise<CommitReport, WithCheckpoint>(({ input }) => steps.commit(input.input, input.checkpointId)),
    rollbackCall: fromPromise<RollbackReport, WithCheckpoint>(({ input }) => steps.rollback(input.input, input.checkpointId)),
  };
}
