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
import { exitReason } from '../../domain/exit';
import type { LogStatus, RunExit } from '../../domain/model';
import type { RunRepository } from '../../store/run-repository';

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
export async function endOnExit(runs: RunRepository, workspaceId: string, id: string, exit: RunExit, clock: Clock): Promise<ExitOutcome> {
  // Each round either succeeds or sees a step start or end acting meanwhile; a few rounds are plenty.
  for (let round = 0; round < 10; round++) {
    const ended = await runs.endUnlessStepActing(
      workspaceId,
      id,
      endedFields('cancelled', exitReason(exit), exit, clock()),
      clock().getTime(),
    );
    if (ended) return 'cancelled';
    const current = await runs.get(workspaceId, id);
    if (!current || current.status !== 'in_progress') return 'already_over';
    if (current.exit) return 'pending';
    if (!current.actingToken) continue; // the acting step ended between the two reads
    const left = await runs.leaveExit(workspaceId, id, current.actingToken, exit);
    if (left) return 'pending';
  }
  throw new Error(`Could not apply the exit of run ${id}: it kept changing.`);
}
