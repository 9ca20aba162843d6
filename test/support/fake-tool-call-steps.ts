/**
 * Scriptable I/O for the tool-call machine: each step succeeds, fails or hangs as told, and every
 * step taken is recorded, so tests can check what ran and in which order. The machine runs them
 * through its one step runner (`toolCallActors(steps)`), as it runs the real ones.
 */
import { ErrorCode } from '../../src/errors/codes.js';
import { McpActorsError } from '../../src/errors/mcp-actors-error.js';
import type { ToolResult } from '../../src/registry/tool-descriptor.js';
import type { ToolCallSteps } from '../../src/tool-call/tool-call-steps.js';
import type { Authorization } from '../../src/tool-call/tool-call-io.js';

export interface Script {
  authorize?: Authorization | 'throw' | 'hang';
  lock?: 'ok' | 'hang';
  rewrite?: 'ok' | 'path-error' | 'invalid';
  checkpoint?: 'ok' | 'throw';
  invoke?: 'ok' | 'tool-error' | 'throw' | 'hang';
  rewriteResult?: 'ok' | 'throw';
  commit?: 'ok' | 'violation' | 'throw';
  rollback?: 'ok' | 'violation' | 'throw';
}

export function okResult(text = 'done'): ToolResult {
  return { success: true, content: [{ type: 'text', text }], data: undefined, error: undefined, errorCode: undefined, durationMs: 1 };
}

export function scriptedSteps(script: Script, steps: string[]): ToolCallSteps {
  const step = (name: string) => steps.push(name);
  return {
    authorize: async () => {
      step('authorize');
      if (script.authorize === 'throw') throw new Error('policy crashed');
      if (script.authorize === 'hang') return new Promise<Authorization>(() => undefined);
      return script.authorize ?? { allowed: true };
    },
    acquireLock: (mode, signal) => {
      step(`lock:${mode}`);
      const release = () => step('unlock');
      if (script.lock !== 'hang') return Promise.resolve(release);
      return new Promise((_resolve, reject) =>
        signal?.addEventListener('abort', () => {
          step('lock-abandoned');
          reject(new Error('gave up waiting'));
        }),
      );
    },
    rewriteArgs: (_input, args) => {
      step('rewrite');
      if (script.rewrite === 'path-error')
        return Promise.reject(new McpActorsError(ErrorCode.SANDBOX_PATH, 'path "../x" leaves the sandbox'));
      // A sandbox path that breaks the schema's pattern: caught by the one validation, after rewriting.
      if (script.rewrite === 'invalid') return Promise.resolve({ ...args, path: 42 });
      return Promise.resolve({ ...args, rewritten: true });
    },
    checkpoint: () => {
      step('checkpoint');
      if (script.checkpoint === 'throw') return Promise.reject(new Error('disk full'));
      return Promise.resolve('cp-1');
    },
    invoke: async (_input, _args, signal) => {
      step('invoke');
      if (script.invoke === 'throw') throw new Error('adapter exploded');
      if (script.invoke === 'hang') {
        await new Promise<void>((resolve) => signal.onAbort(() => resolve()));
        step('invoke-aborted');
        return okResult('too late');
      }
      if (script.invoke === 'tool-error') {
        return { success: false, content: [], data: undefined, error: 'server error: nope', errorCode: 'SERVER_ERROR', durationMs: 1 };
      }
      return okResult();
    },
    rewriteResult: (_input, result) => {
      step('rewrite-result');
      if (script.rewriteResult === 'throw') return Promise.reject(new Error('bad result'));
      return Promise.resolve(result);
    },
    commit: () => {
      step('commit');
      if (script.commit === 'throw') return Promise.reject(new Error('commit failed'));
      if (script.commit === 'violation') {
        return Promise.resolve({
          ok: false,
          violation: new McpActorsError(ErrorCode.CAPABILITY_VIOLATION, 'read-only tool wrote src/x'),
          changes: [{ path: 'src/x', kind: 'added' }],
        });
      }
      return Promise.resolve({ ok: true, changes: [{ path: 'src/main.py', kind: 'modified', before: 'a', after: 'b' }] });
    },
    rollback: (_input, checkpointId) => {
      step(`rollback:${checkpointId ?? 'baseline'}`);
      if (script.rollback === 'throw') return Promise.reject(new Error('rollback failed'));
      if (script.rollback === 'violation') {
        return Promise.resolve({
          restored: true,
          violation: new McpActorsError(ErrorCode.CAPABILITY_VIOLATION, 'read-only tool changed the sandbox'),
        });
      }
      return Promise.resolve({ restored: checkpointId !== undefined || script.commit === 'violation', violation: undefined });
    },
  };
}
