/** The engine's queues and its one message type. */
import type { QueueDefinition } from '@crm/bus';

export const STEP_DUE_TYPE = 'automation.step_due.v1';

export interface StepDuePayload {
  workspaceId: string;
  executionLogId: string;
  /** 0-based position of the step in the enrollment's steps. */
  stepIndex: number;
  /** Unix ms. */
  dueAt: number;
}

/** Records' domain events, for enrollment. */
export const EVENTS_QUEUE: QueueDefinition = { name: 'automation.events', bindings: ['records.#'], prefetch: 32, maxDeliveries: 8 };

/** Steps falling due (published at once, or through bus.schedule for waits). */
export const STEPS_QUEUE: QueueDefinition = { name: 'automation.steps', bindings: [STEP_DUE_TYPE], prefetch: 32, maxDeliveries: 8 };
