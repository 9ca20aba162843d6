/**
 * Scriptable I/O for the tool-call machine: each step succeeds, fails or hangs as told, and every
 * step taken is recorded, so tests can check what ran and in which order.
 */
import { fromCallback, fromPromise } from 'xstate';
import { ErrorCode } from '../../src/errors/codes.js';
import { McpActorsError } from '../../src/errors/mcp-actors-error.js';
import type { Authorization, CommitReport, RollbackReport, ToolCallInput } from '../../src/tool-call/tool-call-io.js';
import type { ToolCallEvent } from '../../src/machines/tool-call-machine.js';
import type { ToolResult } from '../../src/registry/tool-descriptor.js';

export interface Script {
  authorize?: Authorization | 'throw' | 'hang';
  lock?: 'ok' | 'hang';
  rewrite?: 'ok' | 'path-error';
  checkpoint?: 'ok' | 'throw';
  invoke?: 'ok' | 'tool-error' | 'throw' | 'hang';
  rewriteResult?: 'ok' | 'throw';
  commit?: 'ok' | 'violation' | 'throw';
  rollback?: 'ok' | 'violation' | 'throw';
}

export function okResult(text = 'done'): ToolResult {
  return { success: true, content: [{ type: 'text', text }], data: undefined, error: undefined, errorCode: undefined, durationMs: 1 };
}

export function scriptedActors(script: Script, steps: string[]) {
  const step = (name: string) => steps.push(name);
  return {
    authorizeCall: fromPromise<Authorization, ToolCallInput>(async () => {
      step('authorize');
      if (script.authorize === 'throw') throw new Error('policy crashed');
      if (script.authorize === 'hang') return new Promise<Authorization>(() => undefined);
      return script.authorize ?? { allowed: true };
    }),
    holdLock: fromCallback<ToolCallEvent, { mode: 'read' | 'write' }>(({ input, sendBack }) => {
      step(`lock:${input.mode}`);
      if (script.lock !== 'hang') queueMicrotask(() => sendBack({ type: 'lock.acquired' }));
      return () => step('unlock');
    }),
    rewriteArgs: fromPromise<Record<string, unknown>, { input: ToolCallInput; args: Readonly<Record<string, unknown>> }>(async ({ input }) => {
      step('rewrite');
      if (script.rewrite === 'path-error') throw new McpActorsError(ErrorCode.SANDBOX_PATH, 'path "../x" leaves the sandbox');
      return { ...input.args, rewritten: true };
    }),
    takeCheckpoint: fromPromise<string, { input: ToolCallInput }>(async () => {
      step('checkpoint');
      if (script.checkpoint === 'throw') throw new Error('disk full');
      return 'cp-1';
    }),
    invokeTool: fromPromise<ToolResult, { input: ToolCallInput; args: Readonly<Record<string, unknown>> }>(async ({ signal }) => {
      step('invoke');
      if (script.invoke === 'throw') throw new Error('adapter exploded');
      if (script.invoke === 'hang') {
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
        step('invoke-aborted');
        return okResult('too late');
      }
      if (script.invoke === 'tool-error') {
        return { success: false, content: [], data: undefined, error: 'server error: nope', errorCode: 'SERVER_ERROR', durationMs: 1 };
      }
      return okResult();
    }),
    rewriteResult: fromPromise<ToolResult, { input: ToolCallInput; result: ToolResult }>(async ({ input }) => {
      step('rewrite-result');
      if (script.rewriteResult === 'throw') throw new Error('bad result');
      return input.result;
    }),
    commitCall: fromPromise<CommitReport, { input: ToolCallInput; checkpointId: string | undefined }>(async () => {
      step('commit');
      if (script.commit === 'throw') throw new Error('commit failed');
      if (script.commit === 'violation') {
        return { ok: false, violation: new McpActorsError(ErrorCode.CAPABILITY_VIOLATION, 'read-only tool wrote src/x'), changes: [{ path: 'src/x', kind: 'added' }] };
      }
      return { ok: true, changes: [{ path: 'src/main.py', kind: 'modified', before: 'a', after: 'b' }] };
    }),
    rollbackCall: fromPromise<RollbackReport, { input: ToolCallInput; checkpointId: string | undefined }>(async ({ input }) => {
      step(`rollback:${input.checkpointId ?? 'baseline'}`);
      if (script.rollback === 'throw') throw new Error('rollback failed');
      if (script.rollback === 'violation') {
        return { restored: true, violation: new McpActorsError(ErrorCode.CAPABILITY_VIOLATION, 'read-only tool changed the sandbox') };
      }
      return { restored: input.checkpointId !== undefined || script.commit === 'violation', violation: undefined };
    }),
  };
}
