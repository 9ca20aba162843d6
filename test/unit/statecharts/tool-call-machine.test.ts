import { createActor, toPromise } from 'xstate';
import { describe, expect, it, vi } from 'vitest';
import type { CapabilityOverrides } from '../../../src/registry/capabilities.js';
import type { ToolDescriptor } from '../../../src/registry/tool-descriptor.js';
import { toolCallMachine } from '../../../src/tool-call/tool-call-machine.js';
import type { CallOutcome } from '../../../src/tool-call/tool-call-io.js';
import { testTool } from '../../support/descriptors.js';
import { scriptedSteps, type Script } from '../../support/fake-tool-call-steps.js';
import { toolCallActors } from '../../../src/tool-call/tool-call-actors.js';

const tool = (name: string, overrides?: CapabilityOverrides, checkpointable = false): ToolDescriptor =>
  testTool(name, { ...(overrides ? { overrides } : {}), checkpointable });

async function run(
  descriptor: ToolDescriptor,
  script: Script = {},
  options: { args?: Record<string, unknown>; sandboxed?: boolean; timeoutMs?: number; cancelAfterMs?: number } = {},
): Promise<{ outcome: CallOutcome; steps: string[] }> {
  const steps: string[] = [];
  const actor = createActor(toolCallMachine.provide({ actors: toolCallActors(scriptedSteps(script, steps)) }), {
    input: {
      callId: 'c1',
      tool: descriptor,
      args: options.args ?? { path: 'src/main.py' },
      timeoutMs: options.timeoutMs ?? 1_000,
      sandboxed: options.sandboxed ?? true,
      startedAt: Date.now(),
    },
  });
  actor.start();
  if (options.cancelAfterMs !== undefined)
    setTimeout(() => actor.send({ type: 'call.cancel', reason: 'user pressed stop' }), options.cancelAfterMs);
  const outcome = await toPromise(actor);
  return { outcome, steps };
}

describe('the tool-call machine', () => {
  it('runs a read-only call without a checkpoint and commits it', async () => {
    const { outcome, steps } = await run(tool('read_file'));
    expect(outcome.status).toBe('committed');
    expect(outcome.checkpointId).toBeUndefined();
    expect(steps).toEqual(['authorize', 'lock:read', 'rewrite', 'invoke', 'rewrite-result', 'commit', 'unlock']);
  });

  it('checkpoints a call that may write, under the write lock, and reports its changes', async () => {
    const { outcome, steps } = await run(tool('write_file'));
    expect(outcome).toMatchObject({ status: 'committed', checkpointId: 'cp-1', changes: [{ path: 'src/main.py', kind: 'modified' }] });
    expect(steps).toEqual(['authorize', 'lock:write', 'rewrite', 'checkpoint', 'invoke', 'rewrite-result', 'commit', 'unlock']);
  });

  it('rejects arguments that do not match the schema before anything runs, outside a sandbox', async () => {
    const { outcome, steps } = await run(tool('write_file'), {}, { args: { path: 42 }, sandboxed: false });
    expect(outcome.status).toBe('rejected');
    expect(outcome.error?.code).toBe('INVALID_ARGUMENT');
    expect(outcome.error?.message).toContain('/path must be string');
    expect(steps).toEqual([]);
  });

  it('in a sandbox, validates the arguments once, as the tool receives them (after rewriting), and never invokes it', async () => {
    const { outcome, steps } = await run(tool('write_file'), { rewrite: 'invalid' });
    expect(outcome.status).toBe('rejected');
    expect(outcome.error?.code).toBe('INVALID_ARGUMENT');
    expect(outcome.error?.message).toContain('/path must be string');
    expect(steps).toEqual(['authorize', 'lock:write', 'rewrite', 'unlock']);
  });

  it('rejects a denied call with the rule that denied it', async () => {
    const { outcome, steps } = await run(tool('delete_file'), {
      authorize: { allowed: false, rule: 'permissions.execute: deny', reason: 'execute tools are denied for this actor' },
    });
    expect(outcome.status).toBe('rejected');
    expect(outcome.error).toMatchObject({ code: 'PERMISSION_DENIED', details: { rule: 'permissions.execute: deny' } });
    expect(steps).toEqual(['authorize']);
  });

  it('rejects the call when the permission check itself throws, naming that as the rule', async () => {
    const { outcome, steps } = await run(tool('delete_file'), { authorize: 'throw' });
    expect(outcome).toMatchObject({
      status: 'rejected',
      error: { code: 'PERMISSION_DENIED', details: { rule: 'the permission check threw' } },
    });
    expect(steps).toEqual(['authorize']);
  });

  it('gives up a call whose approval does not come within its deadline; the tool never runs', async () => {
    const { outcome, steps } = await run(tool('delete_file'), { authorize: 'hang' }, { timeoutMs: 50 });
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'REQUEST_TIMEOUT', details: { waitedFor: 'approval' } } });
    expect(steps).toEqual(['authorize']);
  });

  it('gives up a call that waits for the sandbox lock past its deadline, and lets go of its place', async () => {
    const { outcome, steps } = await run(tool('write_file'), { lock: 'hang' }, { timeoutMs: 50 });
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'REQUEST_TIMEOUT', details: { waitedFor: 'the sandbox lock' } } });
    expect(steps).toEqual(['authorize', 'lock:write', 'lock-abandoned']);
  });

  it('rejects a path that leaves the sandbox; the tool is never invoked', async () => {
    const { outcome, steps } = await run(tool('write_file'), { rewrite: 'path-error' });
    expect(outcome).toMatchObject({ status: 'rejected', error: { code: 'SANDBOX_PATH' } });
    expect(steps).not.toContain('invoke');
    expect(steps.at(-1)).toBe('unlock');
  });

  it('rolls back a failed write and says effects outside the sandbox were not undone', async () => {
    const { outcome, steps } = await run(tool('write_file'), { invoke: 'tool-error' });
    expect(outcome.status).toBe('rolled-back');
    expect(outcome.error).toMatchObject({ code: 'TOOL_FAILED', details: { errorCode: 'SERVER_ERROR' } });
    expect(outcome.note).toContain('outside the sandbox');
    expect(steps).toContain('rollback:cp-1');
  });

  it('leaves out the note when the tool is checkpointable', async () => {
    const { outcome } = await run(tool('write_file', undefined, true), { invoke: 'throw' });
    expect(outcome.status).toBe('rolled-back');
    expect(outcome.note).toBeUndefined();
  });

  it('times out a hung call, cancels it and rolls back', async () => {
    const { outcome, steps } = await run(tool('write_file'), { invoke: 'hang' }, { timeoutMs: 50 });
    expect(outcome).toMatchObject({ status: 'rolled-back', error: { code: 'REQUEST_TIMEOUT' } });
    expect(steps).toContain('invoke-aborted');
  });

  it('cancels a call in flight and rolls back', async () => {
    const { outcome } = await run(tool('write_file'), { invoke: 'hang' }, { cancelAfterMs: 20, timeoutMs: 5_000 });
    expect(outcome).toMatchObject({ status: 'rolled-back', error: { code: 'CANCELLED' } });
    expect(outcome.error?.message).toContain('user pressed stop');
  });

  it('catches a read-only tool that changed the sandbox and restores it', async () => {
    const { outcome, steps } = await run(tool('list_files'), { commit: 'violation' });
    expect(outcome).toMatchObject({ status: 'rolled-back', error: { code: 'CAPABILITY_VIOLATION' }, changes: [{ path: 'src/x' }] });
    expect(steps).toContain('rollback:baseline');
  });

  it('fails a read-only call whose tool failed, without a rollback to undo', async () => {
    const { outcome } = await run(tool('read_file'), { invoke: 'tool-error' });
    expect(outcome.status).toBe('failed');
    expect(outcome.result?.errorCode).toBe('SERVER_ERROR');
  });

  it('fails the call when the checkpoint cannot be taken, and never invokes the tool', async () => {
    const { outcome, steps } = await run(tool('write_file'), { checkpoint: 'throw' });
    expect(outcome.status).toBe('failed');
    expect(steps).not.toContain('invoke');
  });

  it('fails the call when the rollback itself fails, with the rollback error as the cause and the first error kept', async () => {
    const { outcome } = await run(tool('write_file'), { invoke: 'throw', rollback: 'throw' });
    expect(outcome.status).toBe('failed');
    expect(outcome.error?.code).toBe('CHECKPOINT_FAILED');
    expect(outcome.error?.cause).toMatchObject({ message: 'rollback failed' });
    expect(outcome.error?.details.firstError).toMatchObject({ code: 'TOOL_FAILED' });
    expect(outcome.error?.message).toContain('roll back again');
  });

  it('skips the lock, path rewriting, checkpoints and rollback outside a sandbox (there is nothing to lock or restore)', async () => {
    const { outcome, steps } = await run(tool('write_file'), { invoke: 'tool-error' }, { sandboxed: false });
    expect(outcome.status).toBe('failed');
    expect(steps).toEqual(['authorize', 'invoke']);
  });

  it('releases the lock on every path', async () => {
    vi.useRealTimers();
    const scripts: Script[] = [
      {},
      { invoke: 'tool-error' },
      { rewrite: 'path-error' },
      { checkpoint: 'throw' },
      { commit: 'throw' },
      { rollback: 'throw', invoke: 'throw' },
    ];
    for (const script of scripts) {
      const { steps } = await run(tool('write_file'), script);
      expect(steps.filter((s) => s === 'unlock')).toHaveLength(1);
    }
  });
});
