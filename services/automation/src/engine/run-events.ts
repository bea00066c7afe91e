/**
 * What the engine tells others about runs: a failed run as `automation.run_failed.v1` on the bus,
 * for outbound webhooks. Published after the run's failure is written, with an id derived from the
 * run, so a repeat is the same event; a worker stopping between the write and the publish loses it
 * (automation keeps no outbox).
 */
import type { BusMessage, MessageBus } from '@crm/bus';
import { derivedId } from '../domain/ids';
import type { EnrollmentDocument } from '../domain/model';

export const RUN_FAILED_TYPE = 'automation.run_failed.v1';

export interface RunFailedPayload {
  workspaceId: string;
  executionLogId: string;
  ruleId: string;
  ruleName: string;
  recordType: string;
  recordId: string;
  reason: string | null;
  failedAt: string | null;
}

export class RunEvents {
  constructor(private readonly bus: MessageBus) {}

  async failed(run: EnrollmentDocument): Promise<void> {
    const message: BusMessage<RunFailedPayload> = {
      id: derivedId('runev_', run.id, 'failed'),
      type: RUN_FAILED_TYPE,
      correlationId: run.correlationId,
      occurredAt: new Date().toISOString(),
      payload: {
        workspaceId: run.workspaceId,
        executionLogId: run.id,
        ruleId: run.ruleId,
        ruleName: run.ruleName,
        recordType: run.enrolledRecordType,
        recordId: run.enrolledRecordId,
        reason: run.reason,
        failedAt: run.completedAt,
      },
    };
    await this.bus.publish(message);
  }
}
