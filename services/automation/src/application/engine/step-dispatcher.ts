/**
 * Sends a step message on its way: published at once when due, otherwise through bus.schedule,
 * the one function every delay goes through. The store already holds the step's due time, so a
 * message lost here is re-published by the sweeper.
 */
import type { BusMessage, MessageBus } from '@crm/bus';
import type { StepDuePayload } from './messages';
import { systemClock, type Clock } from '@crm/vocabulary';

export class StepDispatcher {
  constructor(
    private readonly bus: MessageBus,
    private readonly clock: Clock = systemClock,
  ) {}

  async dispatch(message: BusMessage<StepDuePayload>): Promise<void> {
    const delay = message.payload.dueAt - this.clock().getTime();
    if (delay > 0) await this.bus.schedule(message, delay);
    else await this.bus.publish(message);
  }
}
