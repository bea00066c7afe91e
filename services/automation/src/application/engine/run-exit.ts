/**
 * Ending a run on its exit condition while its steps may be running on other workers. A step
 * claims, reads the record, and then marks itself acting (a compare-and-set on its claim and the
 * run being in progress) just before it has any effect. So an exit found
 * - while no step is acting ends the run cancelled at once; a step claimed earlier then finds its
 *   mark refused and does nothing;
 * - while a step is acting (its effect is already under way) is left on the run in `exit`, and the
 *   end of that step applies it: the run ends cancelled, with that step's result.
 * Every write here is conditional, so two workers, or a redelivered event, end a run once.
 */
import { apiTimestamp, type Clock } from '@crm/vocabulary';
import type { Condition, ScopedStore } from '@crm/store';
import { exitReason } from '../../domain/exit';
import type { LogStatus, RunExit } from '../../domain/model';
import { enrollments } from '../../store/collections';

const IN_PROGRESS: Condition = { field: 'status', op: 'eq', value: 'in_progress' };
/** No step acting, or the one that was has lost its claim (its worker died: the lease ran out). */
function noStepActing(now: number): Condition {
  return { or: [[{ field: 'actingToken', op: 'eq', value: null }], [{ field: 'claimUntil', op: 'lt', value: now }]] };
}
/** No exit recorded yet (`exit` is an object; its `metAt` is the scalar the store can compare). */
export const NO_EXIT: Condition = { field: 'exit.metAt', op: 'eq', value: null };

/** The fields of a run that ended: the cursor and claims are cleared. */
export function endedFields(status: Exclude<LogStatus, 'in_progress'>, reason: string | null, exit: RunExit | null, now: Date) {
  return {
    status,
    reason,
    exit,
    activeKey: null,
    dueAt: null,
    claimUntil: null,
    claimToken: null,
    actingToken: null,
    completedAt: apiTimestamp(now),
  };
}

export type ExitOutcome = 'cancelled' | 'pending' | 'already_over';

/** Ends run `id` on `exit`, or leaves the exit to the step acting now (see above). */
export async function endOnExit(scoped: ScopedStore, id: string, exit: RunExit, clock: Clock): Promise<ExitOutcome> {
  // Each round either succeeds or sees a step start or end acting meanwhile; a few rounds are plenty.
  for (let round = 0; round < 10; round++) {
    const ended = await scoped.update(
      enrollments,
      id,
      { set: endedFields('cancelled', exitReason(exit), exit, clock()) },
      { where: [IN_PROGRESS, noStepActing(clock().getTime())] },
    );
    if (ended) return 'cancelled';
    const current = await scoped.get(enrollments, id);
    if (!current || current.status !== 'in_progress') return 'already_over';
    if (current.exit) return 'pending';
    if (!current.actingToken) continue; // the acting step ended between the two reads
    const left = await scoped.update(
      enrollments,
      id,
      { set: { exit } },
      { where: [IN_PROGRESS, { field: 'actingToken', op: 'eq', value: current.actingToken }, NO_EXIT] },
    );
    if (left) return 'pending';
  }
  throw new Error(`Could not apply the exit of run ${id}: it kept changing.`);
}
