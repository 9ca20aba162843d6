/**
 * Runs one prepared call: through the tool-call machine as an actor when it needs a checkpoint or
 * someone is inspecting (so the inspector sees every step), otherwise on the fast path, which walks
 * the same step list.
 */
import { createActor, toPromise, type AnyActorRef, type InspectionEvent, type Observer } from 'xstate';
import type { CallOutcome, ToolCallInput } from './tool-call-io.js';
import { toolCallMachine } from './tool-call-machine.js';
import { reasonText } from './call-flow.js';
import { LinkedCallSignal, type CallSignal } from '../registry/call-signal.js';
import { canTakeFastPath, fastToolCall } from './fast-tool-call.js';
import { toolCallActors } from './tool-call-actors.js';
import type { ToolCallSteps } from './tool-call-steps.js';

export interface ExecuteOptions {
  /** The call's own signal (see `call-signal.ts`); a plain `AbortSignal` is linked to one for the call. */
  readonly signal?: CallSignal | AbortSignal | undefined;
  /** Inspect the call's machine (root calls only; a call with a parent uses its parent's system). */
  readonly inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void) | undefined;
  /** The actor the call belongs to: the call joins its system and shows under it. */
  readonly parent?: AnyActorRef | undefined;
  /** Whether the parent's system is being inspected (then every call runs as a machine). */
  readonly inspected?: boolean;
  /**
   * The call actor's `systemId` and `id` (the name the inspector shows, the runtime's
   * `call:<actor>#<n> <tool>`), asked only when the call runs as a machine.
   */
  readonly label?: (input: ToolCallInput) => { readonly systemId: string; readonly id: string };
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

export function executeToolCall(steps: ToolCallSteps, input: ToolCallInput, options: ExecuteOptions = {}): Promise<CallOutcome> {
  const given = options.signal;
  if (given === undefined || !(given instanceof AbortSignal)) return run(steps, input, options, given);
  return linked(steps, input, options, given);
}

async function linked(steps: ToolCallSteps, input: ToolCallInput, options: ExecuteOptions, given: AbortSignal): Promise<CallOutcome> {
  const call = new LinkedCallSignal([given]);
  try {
    return await run(steps, input, options, call);
  } finally {
    call.unlink();
  }
}

function run(steps: ToolCallSteps, input: ToolCallInput, options: ExecuteOptions, call: CallSignal | undefined): Promise<CallOutcome> {
  const inspected = options.inspected === true || options.inspect !== undefined;
  // Returned as it is: one promise (and its microtask hops) fewer on every fast call.
  if (canTakeFastPath(input, inspected)) return fastToolCall(steps, input, call);
  return machineCall(steps, input, options, call);
}

async function machineCall(
  steps: ToolCallSteps,
  input: ToolCallInput,
  options: ExecuteOptions,
  call: CallSignal | undefined,
): Promise<CallOutcome> {
  const label = options.label?.(input);
  const actor = createActor(machineFor(steps), {
    input,
    systemId: label?.systemId ?? `call:${input.callId}`,
    ...(label ? { id: label.id } : {}),
    ...(options.parent ? { parent: options.parent } : options.inspect ? { inspect: options.inspect } : {}),
  });
  const cancel = (reason: unknown): void => actor.send({ type: 'call.cancel', reason: reasonText(reason) ?? 'aborted' });
  // Cancelled before it started: the cancel waits in the mailbox and is the first thing the call hears.
  if (call?.aborted) cancel(call.reason);
  const unlisten = call?.onAbort(cancel);
  try {
    actor.start();
    return await toPromise(actor);
  } finally {
    unlisten?.();
  }
}
