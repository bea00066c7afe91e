/**
 * What the engine tells others about runs: a failed run as `automation.run_failed.v1` on the bus,
 * for outbound webhooks. At least once: the failure is written with `failureAnnounced: false`, the
 * event published, then the mark removed; the sweeper publishes the runs a crash left marked
 * (`unannounced`). The id is derived from the run, so a repeat is the same event.
 */
import type { BusMessage, MessageBus } from '@crm/bus';
import type { DocumentStore } from '@crm/store';
import { derivedId } from '../../domain/ids';
import type { EnrollmentDocument } from '../../domain/model';
import { enrollments } from '../../store/collections';
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
    private readonly clock: Clock = systemClock,
  ) {}

  async failed(run: EnrollmentDocument, store: DocumentStore): Promise<void> {
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
    await store.forWorkspace(run.workspaceId).update(enrollments, run.id, { unset: ['failureAnnounced'] });
  }

  /** The workspaces holding failed runs whose announcement a crash cut off (some of them). */
  async workspacesUnannounced(store: DocumentStore, limit: number): Promise<string[]> {
    const runs = await store.findAcrossWorkspaces(enrollments, { where: [{ field: 'failureAnnounced', op: 'eq', value: false }], limit });
    return runs.map((run) => run.workspaceId);
  }

  /** A workspace's failed runs whose announcement a crash cut off. */
  unannounced(store: DocumentStore, workspaceId: string, limit: number): Promise<EnrollmentDocument[]> {
    return store.forWorkspace(workspaceId).find(enrollments, { where: [{ field: 'failureAnnounced', op: 'eq', value: false }], limit });
  }
}
