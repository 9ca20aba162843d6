/**
 * What to spawn, sent inside an event: the logic, its `id` (the label the inspector shows),
 * `systemId` and input. It serializes as its ids only (an inspector need not receive a whole machine).
 */
import type { AnyActorLogic } from 'xstate';

export class ChildSpawn<TInput = unknown> {
  constructor(
    readonly logic: AnyActorLogic,
    readonly id: string,
    readonly systemId: string,
    readonly input: TInput,
  ) {}

  toJSON(): { readonly id: string; readonly systemId: string } {
    return { id: this.id, systemId: this.systemId };
  }
}
