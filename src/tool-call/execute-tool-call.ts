/**
 * Runs one prepared call: through the tool-call machine as an actor when it needs a checkpoint or
 * someone is inspecting (so the inspector sees every step), otherwise on the fast path through the
 * same steps.
 */
import { createActor, toPromise, type AnyActorRef, type InspectionEvent, type Observer } from 'xstate';
import type { CallOutcome, ToolCallInput } from './tool-call-io.js';
import { toolCallMachine } from '../machines/tool-call-machine.js';
import { canTakeFastPath, fastToolCall } from './fast-tool-call.js';
import { toolCallActors } from './tool-call-actors.js';
import type { ToolCallSteps } from './tool-call-steps.js';

export interface ExecuteOptions {
  readonly signal?: AbortSignal | undefined;
  /** Inspect the call's machine (root calls only; a call with a parent uses its parent's system). */
  readonly inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void) | undefined;
  /** The actor the call belongs to: the call joins its system and shows under it. */
  readonly parent?: AnyActorRef | undefined;
  /** Whether the parent's system is being inspected (then every call runs as a machine). */
  readonly inspected?: boolean;
  readonly systemId?: string;
  /** The call actor's `id`: the name the inspector shows (the runtime's `call:<actor>#<n> <tool>`). */
  readonly id?: string;
}

// `provide` builds a new machine (its whole state-node tree): do it once per set of steps.
const machines = new WeakMap<ToolCallSteps, ReturnType<typeof toolCallMachine.provide>>();
function machineFor(steps: ToolCallSteps): ReturnType<typeof toolCallMachine.provide> {
  let machine = machines.get(steps);
  if (!machine) {
    machine = toolCallMachine.provide({ actors: toolCallActors(steps) });
    machines.set(steps, machine);
  }
  return machine;
}

export async function executeToolCall(steps: ToolCallSteps, input: ToolCallInput, options: ExecuteOptions = {}): Promise<CallOutcome> {
  const inspected = options.inspected === true || options.inspect !== undefined;
  if (canTakeFastPath(input, inspected)) return fastToolCall(steps, input, options.signal);

  const actor = createActor(machineFor(steps), {
    input,
    systemId: options.systemId ?? `call:${input.callId}`,
    ...(options.id ? { id: options.id } : {}),
    ...(options.parent ? { parent: options.parent } : options.inspect ? { inspect: options.inspect } : {}),
  });
  const signal = options.signal;
  const onAbort = (): void => {
    const reason = signal?.reason;
    actor.send({ type: 'call.cancel', reason: reason instanceof Error ? reason.message : String(reason ?? 'aborted') });
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    actor.start();
    if (signal?.aborted) onAbort();
    return await toPromise(actor);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}
