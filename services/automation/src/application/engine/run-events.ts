/**
 * What the engine tells others about runs: a failed run as `automation.run_failed.v1` on the bus,
 * for outbound webhooks. At least once: the failure is written with `failureAnnounced: false`, the
 * event published, then the mark removed; the sweeper publishes the runs a crash left marked
 * (`unannounced`). The id is derived from the run, so a repeat is the same event.
 */
import type { BusMessage, MessageBus } from '@crm/bus';
import { derivedId } from '../../domain/ids';
import type { EnrollmentDocument } from '../../domain/model';
import type { RunRepository } from '../../store/run-repository';
import { systemClock, type Clock } from '@crm/vocabulary';

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
  constructor(
    private readonly bus: MessageBus,
    private readonly runs: RunRepository,
    private readonly clock: Clock = systemClock,
  ) {}

  async failed(run: EnrollmentDocument): Promise<void> {
    const message: BusMessage<RunFailedPayload> = {
      id: derivedId('runev_', run.id, 'failed'),
      type: RUN_FAILED_TYPE,
      correlationId: run.correlationId,
      occurredAt: this.clock().toISOString(),
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
    // Mandatory: unrouted, the run stays unannounced and the sweeper announces it again.
    await this.bus.publish(message, { mandatory: true });
    await this.runs.markAnnounced(run.workspaceId, run.id);
  }

  /** The workspaces holding failed runs whose announcement a crash cut off (some of them). */
  async workspacesUnannounced(limit: number): Promise<string[]> {
    const runs = await this.runs.unannouncedFailuresAcrossWorkspaces(limit);
    return runs.map((run) => run.workspaceId);
  }

  /** A workspace's failed runs whose announcement a crash cut off. */
  unannounced(workspaceId: string, limit: number): Promise<EnrollmentDocument[]> {
    return this.runs.unannouncedFailures(workspaceId, limit);
  }
}
