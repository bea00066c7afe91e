/**
 * Runs follow their record into a merge (records.records_merged.v1): every run of a merged record,
 * its execution log included, moves to the survivor. A run in progress keeps going on the survivor,
 * unless the survivor is already in that rule: one run per record and rule (the activeKey index),
 * so the merged record's run ends cancelled, saying why. Redelivery is harmless: a second pass
 * finds no run of the merged ids.
 */
import type { BusMessage } from '@crm/bus';
import type { Logger } from '@crm/observability';
import type { RunRepository } from '../../store/run-repository';
import { endedFields } from './run-exit';
import { systemClock, type Clock } from '@crm/vocabulary';

export const RECORDS_MERGED = 'records.records_merged.v1';

interface MergedPayload {
  workspaceId?: string;
  recordId?: string;
  mergedIds?: string[];
}

export class MergeFollower {
  constructor(
    private readonly runs: RunRepository,
    private readonly logger: Logger,
    private readonly clock: Clock = systemClock,
  ) {}

  async handle(message: BusMessage): Promise<void> {
    if (message.type !== RECORDS_MERGED) return;
    const { workspaceId, recordId: survivor, mergedIds } = message.payload as MergedPayload;
    if (!workspaceId || !survivor || !mergedIds?.length) return;
    const runs = await this.runs.runsOfRecords(workspaceId, mergedIds);
    for (const run of runs) {
      if ((await this.runs.moveToRecord(workspaceId, run, survivor)) === 'survivor_in_rule') {
        const reason = `The record was merged into ${survivor}, which is already in this rule.`;
        await this.runs.endInProgress(workspaceId, run.id, {
          ...endedFields('cancelled', reason, null, this.clock()),
          enrolledRecordId: survivor,
        });
        this.logger.info(
          { executionLogId: run.id, recordId: survivor, ruleId: run.ruleId },
          'run of a merged record ended: the survivor is already in its rule',
        );
      }
    }
  }
}
