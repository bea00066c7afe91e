/**
 * Exit conditions applied when the record changes. Every records event about one record (an
 * update, a status or stage change, a conversion; each of a group's, whose records' runs are read
 * together) is checked against the record's runs in progress:
 * a run whose exit condition now holds ends cancelled at once (run-exit.ts), not when its next step
 * falls due. The record is read again rather than taken from the event, because events can be
 * handled out of order: a stale "converted" must not end a run the record has since left.
 * The worker calls this after the Enroller on the same event, so a run enrolled by an event is
 * checked against the record as it is after its insert: a change handled by another worker just
 * before that insert (which found no run to end) cannot leave the run waiting.
 */
import { apiTimestamp, eventsOfGroup, systemClock, type Clock } from '@crm/vocabulary';
import type { BusMessage } from '@crm/bus';
import type { Logger } from '@crm/observability';
import { counter } from '@crm/telemetry';
import type { RecordsGateway } from '../../adapters/records-gateway';
import { exitMet } from '../../domain/exit';
import type { EnrollmentDocument } from '../../domain/model';
import { messageWorkspaceId } from '../../domain/triggers';
import type { RunRepository } from '../../store/run-repository';
import { endOnExit } from './run-exit';

const exitsApplied = counter('automation_exits_on_change_total', 'Runs ended by an exit condition when their record changed, by outcome.', [
  'outcome',
]);

interface RecordEventPayload {
  workspaceId?: string;
  recordId?: string;
}

export class ExitWatcher {
  constructor(
    private readonly runs: RunRepository,
    private readonly records: RecordsGateway,
    private readonly logger: Logger,
    private readonly clock: Clock = systemClock,
  ) {}

  async handle(message: BusMessage): Promise<void> {
    const events = eventsOfGroup(message);
    if (events.length <= 1) {
      for (const event of events) await this.handleEvent(event, await this.runningFor(event));
      return;
    }
    // A group (an import chunk's contacts, a batch write's records; all of one workspace): the runs
    // in progress of all its records read together, not one read per record.
    const workspaceId = messageWorkspaceId(message);
    if (!workspaceId) return;
    const recordIds = [...new Set(events.map((event) => (event.payload as RecordEventPayload).recordId).filter((id) => !!id))] as string[];
    const running = await this.runs.runsInProgressOf(workspaceId, recordIds);
    const ended = new Set<string>();
    for (const event of events) {
      const recordId = (event.payload as RecordEventPayload).recordId;
      const runs = running.filter((run) => run.enrolledRecordId === recordId && !ended.has(run.id));
      for (const id of await this.handleEvent(event, runs)) ended.add(id);
    }
  }

  /** The runs in progress of the event's record (none for an event about no record). */
  private async runningFor(message: BusMessage): Promise<EnrollmentDocument[]> {
    const { workspaceId, recordId } = message.payload as RecordEventPayload;
    if (!message.type.startsWith('records.') || !workspaceId || !recordId) return [];
    return this.runs.runsInProgress(workspaceId, recordId);
  }

  /** Ends the runs whose exit condition the record now meets; the ids of those it ended. */
  private async handleEvent(message: BusMessage, running: EnrollmentDocument[]): Promise<string[]> {
    if (!message.type.startsWith('records.')) return [];
    const { workspaceId, recordId } = message.payload as RecordEventPayload;
    if (!workspaceId || !recordId) return [];
    const watched = running.filter((run) => run.exitConditions.length > 0);
    if (watched.length === 0) return [];
    const record = await this.records.getRecord(workspaceId, watched[0]!.enrolledRecordType, recordId, message.correlationId);
    if (!record) return []; // deleted: the run's next step ends it (a step reads the record first)
    const metAt = apiTimestamp(this.clock());
    const ended: string[] = [];
    for (const run of watched) {
      const exit = exitMet(run.exitConditions, record, metAt);
      if (!exit) continue;
      const outcome = await endOnExit(this.runs, workspaceId, run.id, exit, this.clock);
      exitsApplied.inc({ outcome });
      ended.push(run.id);
      this.logger.info({ executionLogId: run.id, recordId, condition: exit.condition, outcome }, 'exit condition met on a record change');
    }
    return ended;
  }
}
