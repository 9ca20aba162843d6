/**
 * The fast path and the tool-call machine must agree: for every generated read-only call — valid
 * or not, allowed or not, in a sandbox or not, with each step succeeding, failing or throwing —
 * both end with the same status, error, result, changes and note. That includes a call cancelled
 * while its tool runs, for a tool that answers the cancel itself (it keeps its own deadline: the
 * fast path then races nothing) and for one that ignores it (the runner's race ends the call).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { executeToolCall } from '../src/tool-call/execute-tool-call.js';
import type { ToolCallSteps } from '../src/tool-call/tool-call-steps.js';
import { fastToolCall } from '../src/tool-call/fast-tool-call.js';
import { linkCallSignal } from '../src/registry/call-signal.js';
import { ErrorCode } from '../src/errors/codes.js';
import { McpActorsError } from '../src/errors/mcp-actors-error.js';
import type { CallOutcome, ToolCallInput } from '../src/tool-call/tool-call-io.js';
import type { ToolResult } from '../src/registry/tool-descriptor.js';
import { testTool } from '../test/support/descriptors.js';

const scriptArb = fc.record({
  sandboxed: fc.boolean(),
  argsValid: fc.boolean(),
  checkpointable: fc.boolean(),
  authorize: fc.constantFrom('allow', 'deny', 'deny-tenant', 'throw'),
  /** The policy's answer carried by the call (a decision, no I/O), or none (the step asks `authorize`). */
  decided: fc.constantFrom('none', 'none', 'allowed', 'denied'),
  lock: fc.constantFrom('ok', 'ok', 'throw'),
  rewrite: fc.constantFrom('ok', 'ok', 'path-error', 'throw'),
  invoke: fc.constantFrom('ok', 'ok', 'tool-error', 'throw', 'mcp-error'),
  rewriteResult: fc.constantFrom('ok', 'ok', 'throw'),
  commit: fc.constantFrom('ok', 'ok', 'violation', 'throw'),
  rollback: fc.constantFrom('restored', 'not-restored', 'violation', 'throw'),
  cancelledBeforeStart: fc.boolean(),
  invokeThrowsSynchronously: fc.boolean(),
  keepsOwnDeadline: fc.boolean(),
  cancelledWhileInvoking: fc.boolean(),
});
type ScriptCase = typeof scriptArb extends fc.Arbitrary<infer T> ? T : never;

function steps(script: ScriptCase, caller: AbortController): ToolCallSteps {
  const ok: ToolResult = {
    success: true,
    content: [{ type: 'text', text: 'ok' }],
    data: { n: 1 },
    error: undefined,
    errorCode: undefined,
    durationMs: 0,
  };
  return {
    authorize: () => {
      if (script.authorize === 'throw') throw new Error('policy crashed');
      if (script.authorize === 'deny') return { allowed: false, rule: 'permissions.execute: deny', reason: 'denied' };
      if (script.authorize === 'deny-tenant')
        return { allowed: false, rule: 'tenant', reason: 'tenant argument', code: ErrorCode.TENANT_ARGUMENT };
      return { allowed: true };
    },
    acquireLock: () => {
      if (script.lock === 'throw') return Promise.reject(new Error('lock broken'));
      return Promise.resolve(() => undefined);
    },
    rewriteArgs: (_input, args) => {
      if (script.rewrite === 'path-error') return Promise.reject(new McpActorsError(ErrorCode.SANDBOX_PATH, 'leaves the sandbox'));
      if (script.rewrite === 'throw') return Promise.reject(new Error('rewriter crashed'));
      return Promise.resolve({ ...args, path: `/sandbox/${String(args.path)}` });
    },
    checkpoint: () => Promise.reject(new Error('a read-only call never checkpoints')),
    keepsOwnDeadline: () => script.keepsOwnDeadline,
    invoke: (_input, _args, signal) => {
      if (script.invokeThrowsSynchronously && script.invoke === 'throw') throw new Error('no handler for the tool');
      if (script.cancelledWhileInvoking) {
        // The caller gives up while the tool runs. A tool that keeps its own deadline answers the
        // cancel at once (as the in-process server and the MCP adapter do); another one finishes.
        // After the step has begun (a microtask: before any timer), never before.
        queueMicrotask(() => caller.abort(new Error('stopped mid-call')));
        return new Promise<ToolResult>((resolve) => {
          const done = setTimeout(() => resolve(ok), 20);
          if (script.keepsOwnDeadline) {
            signal.onAbort(() => {
              clearTimeout(done);
              resolve({ ...ok, success: false, error: 'cancelled', errorCode: 'CANCELLED' });
            });
          }
        });
      }
      if (script.invoke === 'throw') return Promise.reject(new Error('adapter crashed'));
      if (script.invoke === 'mcp-error') return Promise.reject(new McpActorsError(ErrorCode.CONNECTION_LOST, 'server went away'));
      if (script.invoke === 'tool-error')
        return Promise.resolve({ ...ok, success: false, error: 'server error: no', errorCode: 'SERVER_ERROR' as const });
      return Promise.resolve(ok);
    },
    rewriteResult: (_input, result) => {
      if (script.rewriteResult === 'throw') return Promise.reject(new Error('result rewriter crashed'));
      return Promise.resolve({ ...result, content: [{ type: 'text', text: 'ok (logical)' }] });
    },
    commit: () => {
      if (script.commit === 'throw') return Promise.reject(new Error('commit crashed'));
      if (script.commit === 'violation') {
        return Promise.resolve({
          ok: false,
          violation: new McpActorsError(ErrorCode.CAPABILITY_VIOLATION, 'wrote x'),
          changes: [{ path: 'x', kind: 'added' }],
        });
      }
      return Promise.resolve({ ok: true, changes: [] });
    },
    rollback: () => {
      if (script.rollback === 'throw') return Promise.reject(new Error('rollback crashed'));
      if (script.rollback === 'violation')
        return Promise.resolve({ restored: true, violation: new McpActorsError(ErrorCode.CAPABILITY_VIOLATION, 'changed y') });
      return Promise.resolve({ restored: script.rollback === 'restored', violation: undefined });
    },
  };
}

function input(script: ScriptCase): ToolCallInput {
  return {
    callId: 'c',
    tool: testTool('read_notes', {
      checkpointable: script.checkpointable,
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    }),
    args: script.argsValid ? { path: 'notes.md' } : { path: 7 },
    timeoutMs: 10_000,
    sandboxed: script.sandboxed,
    startedAt: Date.now(),
    ...(script.decided === 'allowed' ? { authorization: { allowed: true } } : {}),
    ...(script.decided === 'denied' ? { authorization: { allowed: false, rule: 'permissions.execute: deny', reason: 'decided' } } : {}),
  };
}

function comparable(outcome: CallOutcome) {
  return {
    status: outcome.status,
    result: outcome.result,
    changes: outcome.changes,
    checkpointId: outcome.checkpointId,
    note: outcome.note,
    errorCode: outcome.error?.code,
    errorMessage: outcome.error?.message,
  };
}

describe('the fast path', () => {
  it('gives the same outcome as the tool-call machine for every read-only call', async () => {
    await fc.assert(
      fc.asyncProperty(scriptArb, async (script) => {
        const caller = (): AbortController => {
          const controller = new AbortController();
          if (script.cancelledBeforeStart) controller.abort(new Error('stopped by the user'));
          return controller;
        };
        // `inspected` makes executeToolCall run the machine, as it does for an inspected call.
        const machineCaller = caller();
        const viaMachine = await executeToolCall(steps(script, machineCaller), input(script), {
          signal: machineCaller.signal,
          inspected: true,
        });
        const fastCaller = caller();
        const viaFastPath = await fastToolCall(steps(script, fastCaller), input(script), linkCallSignal(fastCaller.signal));
        expect(comparable(viaFastPath)).toEqual(comparable(viaMachine));
      }),
      { numRuns: 1_000 },
    );
  });
});
