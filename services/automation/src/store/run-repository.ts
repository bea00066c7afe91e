/**
 * The runs (enrollments): one record's run through one rule, the execution log clients read and the
 * engine's cursor. Every write the engine makes to a run is conditional (on its status, its step,
 * the claim a worker holds, an exit not yet left), so two workers, or a redelivered message, never
 * move a run twice; each method says which condition it holds to.
 */
import { StoreError, type Change, type Condition, type DocumentStore } from '@crm/store';
import type { EnrollmentDocument, RunExit } from '../domain/model';
import type { Page, Paging } from '../domain/paging';
import { enrollments, rules } from './collections';
import { workspacePage } from './paging';

/** A change to a run (set, unset, inc). */
export type RunChange = Change<EnrollmentDocument>;

const IN_PROGRESS: Condition = { field: 'status', op: 'eq', value: 'in_progress' };
/** No exit recorded yet (`exit` is an object; its `metAt` is the scalar the store can compare). */
const NO_EXIT: Condition = { field: 'exit.metAt', op: 'eq', value: null };

function holding(token: string): Condition {
  return { field: 'claimToken', op: 'eq', value: token };
}

/** Nobody holds the step: never claimed, or the claim's lease ran out. */
function unclaimed(now: number): Condition {
  return { or: [[{ field: 'claimUntil', op: 'exists', value: false }], [{ field: 'claimUntil', op: 'lt', value: now }]] };
}

/** No step acting, or the one that was has lost its claim (its worker died: the lease ran out). */
function noStepActing(now: number): Condition {
  return { or: [[{ field: 'actingToken', op: 'eq', value: null }], [{ field: 'claimUntil', op: 'lt', value: now }]] };
}

/** In progress, due by `before`, and held by nobody at `now`. */
function overdueSteps(now: number, before: number): Condition[] {
  return [IN_PROGRESS, { field: 'dueAt', op: 'lte', value: before }, unclaimed(now)];
}

const UNANNOUNCED: Condition = { field: 'failureAnnounced', op: 'eq', value: false };

export interface LogFilter {
  status?: string;
  /** Runs started after this API timestamp. */
  startedAfter?: string;
}

/** Record ids per `in` condition, within what the store binds at once. */
const RECORD_IDS_PER_READ = 500;

export class RunRepository {
  constructor(private readonly store: DocumentStore) {}

  get(workspaceId: string, id: string): Promise<EnrollmentDocument | null> {
    return this.store.forWorkspace(workspaceId).get(enrollments, id);
  }

  /**
   * Inserts the run and counts it on its rule, in one commit, only while the rule is active. False
   * when nobody enrolled: a duplicate is a redelivered event (same id) or a record already in this
   * rule (activeKey); a conflict is a rule deactivated or deleted since it was read.
   */
  async enroll(enrollment: EnrollmentDocument): Promise<boolean> {
    try {
      await this.store.forWorkspace(enrollment.workspaceId).commit([
        { kind: 'insert', collection: enrollments, document: enrollment as unknown as EnrollmentDocument & Record<string, unknown> },
        {
          kind: 'update',
          collection: rules,
          id: enrollment.ruleId,
          change: { inc: { enrolledCount: 1 } },
          where: [{ field: 'isActive', op: 'eq', value: true }],
        },
      ]);
      return true;
    } catch (error) {
      if (error instanceof StoreError && (error.code === 'duplicate' || error.code === 'conflict')) return false;
      throw error;
    }
  }

  /** A rule's execution log, newest first. */
  logPage(workspaceId: string, ruleId: string, filter: LogFilter, paging: Paging): Promise<Page<EnrollmentDocument>> {
    const where: Condition[] = [{ field: 'ruleId', op: 'eq', value: ruleId }];
    if (filter.status) where.push({ field: 'status', op: 'eq', value: filter.status });
    if (filter.startedAfter) where.push({ field: 'startedAt', op: 'gt', value: filter.startedAfter });
    return workspacePage(this.store, workspaceId, enrollments, { where, sort: { field: 'startedAt', direction: 'desc' } }, paging);
  }

  /** Ends cancelled, with `reason`, every run of the rule still in progress; returns how many. */
  cancelRunsOfRule(workspaceId: string, ruleId: string, reason: string, completedAt: string): Promise<number> {
    return this.store.forWorkspace(workspaceId).updateMany(
      enrollments,
      [
        { field: 'ruleId', op: 'eq', value: ruleId },
        { field: 'status', op: 'eq', value: 'in_progress' },
      ],
      { set: { status: 'cancelled', activeKey: null, dueAt: null, reason, completedAt } },
    );
  }

  /**
   * Claims step `stepIndex` of the run for the holder of `token` until `claimUntil`, only while the
   * run is in progress at that step and nobody holds it at `now`; null otherwise.
   */
  claimStep(
    workspaceId: string,
    id: string,
    stepIndex: number,
    now: number,
    token: string,
    claimUntil: number,
  ): Promise<EnrollmentDocument | null> {
    return this.store
      .forWorkspace(workspaceId)
      .update(
        enrollments,
        id,
        { set: { claimUntil, claimToken: token, actingToken: null, lastClaim: { stepIndex, at: now } } },
        { where: [IN_PROGRESS, { field: 'stepIndex', op: 'eq', value: stepIndex }, unclaimed(now)] },
      );
  }

  /** Extends the claim while `token` holds it; false when it does not any more. */
  async renewClaim(workspaceId: string, id: string, token: string, claimUntil: number): Promise<boolean> {
    const renewed = await this.store
      .forWorkspace(workspaceId)
      .update(enrollments, id, { set: { claimUntil } }, { where: [holding(token)] });
    return renewed !== null;
  }

  /** Marks the step of `token` acting, while it holds the claim and the run is in progress; null otherwise. */
  markActing(workspaceId: string, id: string, token: string): Promise<EnrollmentDocument | null> {
    return this.store
      .forWorkspace(workspaceId)
      .update(enrollments, id, { set: { actingToken: token } }, { where: [holding(token), IN_PROGRESS] });
  }

  /** Remembers the user an assign_user step chose, while `token` holds the claim. */
  async recordAssignment(workspaceId: string, id: string, token: string, assignment: { stepIndex: number; userId: string }): Promise<void> {
    await this.store.forWorkspace(workspaceId).update(enrollments, id, { set: { assignment } }, { where: [holding(token)] });
  }

  /**
   * Ends the step of `token` with `change` (and clears its acting mark), while it holds the claim
   * and no exit was left on the run; null otherwise.
   */
  endStep(workspaceId: string, id: string, token: string, change: RunChange): Promise<EnrollmentDocument | null> {
    return this.store
      .forWorkspace(workspaceId)
      .update(enrollments, id, { ...change, set: { ...change.set, actingToken: null } }, { where: [holding(token), NO_EXIT] });
  }

  /** Ends the run with `change` on the exit left while the step of `token` acted, while it holds the claim. */
  async endOnLeftExit(workspaceId: string, id: string, token: string, change: RunChange): Promise<void> {
    await this.store.forWorkspace(workspaceId).update(enrollments, id, change, { where: [holding(token)] });
  }

  /** Ends the run with `ended` while it is in progress and no step is acting at `now`; null otherwise. */
  endUnlessStepActing(
    workspaceId: string,
    id: string,
    ended: Partial<EnrollmentDocument>,
    now: number,
  ): Promise<EnrollmentDocument | null> {
    return this.store.forWorkspace(workspaceId).update(enrollments, id, { set: ended }, { where: [IN_PROGRESS, noStepActing(now)] });
  }

  /** Leaves `exit` for the step acting with `actingToken` to apply, while it still acts and no exit was left; null otherwise. */
  leaveExit(workspaceId: string, id: string, actingToken: string, exit: RunExit): Promise<EnrollmentDocument | null> {
    return this.store
      .forWorkspace(workspaceId)
      .update(
        enrollments,
        id,
        { set: { exit } },
        { where: [IN_PROGRESS, { field: 'actingToken', op: 'eq', value: actingToken }, NO_EXIT] },
      );
  }

  /** The record's runs in progress. */
  runsInProgress(workspaceId: string, recordId: string): Promise<EnrollmentDocument[]> {
    return this.store.forWorkspace(workspaceId).find(enrollments, {
      where: [
        { field: 'enrolledRecordId', op: 'eq', value: recordId },
        { field: 'status', op: 'eq', value: 'in_progress' },
      ],
    });
  }

  /** The runs in progress of any of these records (a group's), read a few hundred records at a time. */
  async runsInProgressOf(workspaceId: string, recordIds: string[]): Promise<EnrollmentDocument[]> {
    const store = this.store.forWorkspace(workspaceId);
    const found: EnrollmentDocument[] = [];
    for (let i = 0; i < recordIds.length; i += RECORD_IDS_PER_READ) {
      const values = recordIds.slice(i, i + RECORD_IDS_PER_READ);
      found.push(
        ...(await store.find(enrollments, {
          where: [
            { field: 'enrolledRecordId', op: 'in', values },
            { field: 'status', op: 'eq', value: 'in_progress' },
          ],
        })),
      );
    }
    return found;
  }

  /** Every run of these records, whatever its status. */
  runsOfRecords(workspaceId: string, recordIds: string[]): Promise<EnrollmentDocument[]> {
    return this.store.forWorkspace(workspaceId).find(enrollments, { where: [{ field: 'enrolledRecordId', op: 'in', values: recordIds }] });
  }

  /**
   * Moves the run to record `survivor` (and its activeKey, while in progress), unless it moved
   * meanwhile. 'survivor_in_rule' when the survivor already has a run of the rule in progress
   * (the activeKey index refuses a second one): nothing is written then.
   */
  async moveToRecord(workspaceId: string, run: EnrollmentDocument, survivor: string): Promise<'moved' | 'survivor_in_rule'> {
    const move = { enrolledRecordId: survivor, ...(run.activeKey ? { activeKey: `${run.ruleId}:${survivor}` } : {}) };
    try {
      await this.store
        .forWorkspace(workspaceId)
        .update(enrollments, run.id, { set: move }, { where: [{ field: 'enrolledRecordId', op: 'eq', value: run.enrolledRecordId }] });
      return 'moved';
    } catch (error) {
      if (!(error instanceof StoreError && error.code === 'duplicate')) throw error;
      return 'survivor_in_rule';
    }
  }

  /** Ends the run with `ended` while it is in progress. */
  async endInProgress(workspaceId: string, id: string, ended: Partial<EnrollmentDocument>): Promise<void> {
    await this.store.forWorkspace(workspaceId).update(enrollments, id, { set: ended }, { where: [IN_PROGRESS] });
  }

  /** Steps in progress due by `before` and held by nobody at `now`, in any workspace, earliest due first. */
  overdueStepsAcrossWorkspaces(now: number, before: number, limit: number): Promise<EnrollmentDocument[]> {
    return this.store.findAcrossWorkspaces(enrollments, {
      where: overdueSteps(now, before),
      sort: [{ field: 'dueAt', direction: 'asc' }],
      limit,
    });
  }

  /** The workspace's steps in progress due by `before` and held by nobody at `now`, earliest due first. */
  overdueSteps(workspaceId: string, now: number, before: number, limit: number): Promise<EnrollmentDocument[]> {
    return this.store
      .forWorkspace(workspaceId)
      .find(enrollments, { where: overdueSteps(now, before), sort: [{ field: 'dueAt', direction: 'asc' }], limit });
  }

  /** Failed runs whose announcement was not made (a crash cut it off), in any workspace. */
  unannouncedFailuresAcrossWorkspaces(limit: number): Promise<EnrollmentDocument[]> {
    return this.store.findAcrossWorkspaces(enrollments, { where: [UNANNOUNCED], limit });
  }

  /** The workspace's failed runs whose announcement was not made. */
  unannouncedFailures(workspaceId: string, limit: number): Promise<EnrollmentDocument[]> {
    return this.store.forWorkspace(workspaceId).find(enrollments, { where: [UNANNOUNCED], limit });
  }

  /** The run's failure was announced: the mark goes. */
  async markAnnounced(workspaceId: string, id: string): Promise<void> {
    await this.store.forWorkspace(workspaceId).update(enrollments, id, { unset: ['failureAnnounced'] });
  }
}
