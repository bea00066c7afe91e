/**
 * Runs an enrollment's steps. A step message names (enrollment, stepIndex); the runner
 * - drops it when the enrollment has moved on or ended (a duplicate or a sweeper re-publish);
 * - claims the step with a conditional update on (status, stepIndex, no live claim), so two
 *   workers handed the same step never both run it;
 * - reads the record again: gone → the enrollment ends cancelled (cleanly); an exit condition
 *   holds → cancelled;
 * - renews the claim every third of its lease while the step works, so a slow step (an SMTP server
 *   or a model provider taking its time) is not claimed and run again by another worker;
 * - marks the step acting (compare-and-set on its claim), the last point where an exit found by
 *   the ExitWatcher stops it (run-exit.ts);
 * - runs the step (StepActions, idempotent by (enrollment, step)), then moves the cursor with a
 *   write conditional on its claim, and goes on with the next step at once when it is due now,
 *   or hands it to bus.schedule when it is a wait.
 * A step that cannot succeed ends the enrollment failed with its reason; a dependency that is
 * down (records, auth) is retried with backoff a few times before that.
 */
import { apiTimestamp, systemClock, type Clock } from '@crm/vocabulary';
import { randomUUID } from 'node:crypto';
import { newMessage, type BusMessage } from '@crm/bus';
import { isDomainError, type Logger } from '@crm/observability';
import type { RecordsGateway } from '../../adapters/records-gateway';
import { exitMet, exitReason } from '../../domain/exit';
import type { EnrollmentDocument, LogStatus, RunExit, StepResult } from '../../domain/model';
import { dueAtOnReaching, retryDelayMs } from '../../domain/schedule';
import type { RunChange, RunRepository } from '../../store/run-repository';
import { STEP_DUE_TYPE, type StepDuePayload } from './messages';
import type { RunEvents } from './run-events';
import { endedFields } from './run-exit';
import { StepActions, StepFailure } from './step-actions';
import type { StepDispatcher } from './step-dispatcher';
import { counter, histogram } from '@crm/telemetry';

const stepsRun = counter('automation_steps_total', 'Automation steps run, by step type and outcome.', ['type', 'status']);
const stepLateness = histogram(
  'automation_step_lateness_seconds',
  'How late a step ran after its due time, by step type.',
  ['type'],
  [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
);

export interface StepRunnerOptions {
  waitScale: number;
  /** How long a claim holds before another worker may take the step over. */
  claimLeaseMs?: number;
  /** Transient failures of one step before the enrollment fails. */
  maxAttempts?: number;
  /** Where failed runs are announced (outbound webhooks); none in most unit tests. */
  runEvents?: RunEvents;
}

export class StepRunner {
  private readonly leaseMs: number;
  private readonly maxAttempts: number;

  constructor(
    private readonly runs: RunRepository,
    private readonly records: RecordsGateway,
    private readonly actions: StepActions,
    private readonly dispatcher: StepDispatcher,
    private readonly logger: Logger,
    private readonly options: StepRunnerOptions,
    private readonly clock: Clock = systemClock,
  ) {
    this.leaseMs = options.claimLeaseMs ?? 60_000;
    this.maxAttempts = options.maxAttempts ?? 5;
  }

  async handle(message: BusMessage): Promise<void> {
    if (message.type !== STEP_DUE_TYPE) return;
    const payload = message.payload as StepDuePayload;
    let stepIndex: number | null = payload.stepIndex;
    while (stepIndex !== null) stepIndex = await this.runStep(payload.workspaceId, payload.executionLogId, stepIndex);
  }

  /** Runs one step if it is due and unclaimed; returns the next step index to run at once, if any. */
  async runStep(workspaceId: string, id: string, stepIndex: number): Promise<number | null> {
    const current = await this.runs.get(workspaceId, id);
    if (!current || current.status !== 'in_progress' || current.stepIndex !== stepIndex) return null;
    const now = this.clock().getTime();
    if (current.dueAt !== null && current.dueAt > now + 5) {
      // Early (a stray duplicate): the store's due time is what counts.
      await this.dispatch(current, current.dueAt);
      return null;
    }
    const token = randomUUID();
    const claimed = await this.runs.claimStep(workspaceId, id, stepIndex, now, token, now + this.leaseMs);
    if (!claimed) return null; // another worker holds it, or it moved on
    const renewal = this.keepClaim(workspaceId, id, token);
    try {
      return await this.runClaimed(claimed, current, stepIndex, token, now);
    } finally {
      clearInterval(renewal);
    }
  }

  /** Renews the claim on a timer until cleared; a renewal that finds the claim gone stops. */
  private keepClaim(workspaceId: string, id: string, token: string): NodeJS.Timeout {
    const timer: NodeJS.Timeout = setInterval(
      () => {
        this.runs
          .renewClaim(workspaceId, id, token, this.clock().getTime() + this.leaseMs)
          .then((renewed) => {
            if (!renewed) clearInterval(timer); // the step ended (or was taken over): nothing left to hold
          })
          .catch((error: unknown) => this.logger.warn({ err: error, executionLogId: id }, 'could not renew a step claim; will retry'));
      },
      Math.max(10, Math.floor(this.leaseMs / 3)),
    );
    timer.unref();
    return timer;
  }

  private async runClaimed(
    claimed: EnrollmentDocument,
    current: EnrollmentDocument,
    stepIndex: number,
    token: string,
    now: number,
  ): Promise<number | null> {
    const workspaceId = claimed.workspaceId;
    const id = claimed.id;
    if (claimed.exit) {
      // An exit left for a step that never ended (its worker died): apply it now.
      await this.finish(claimed, token, 'cancelled', exitReason(claimed.exit), undefined, claimed.exit);
      return null;
    }
    const step = current.steps[stepIndex]!;
    const rerun = current.lastClaim?.stepIndex === stepIndex;
    const started = this.clock();
    try {
      const record = await this.records.getRecord(workspaceId, current.enrolledRecordType, current.enrolledRecordId, current.correlationId);
      if (!record) {
        await this.finish(claimed, token, 'cancelled', `The enrolled ${current.enrolledRecordType} was deleted.`);
        return null;
      }
      const exit = exitMet(current.exitConditions, record, apiTimestamp(this.clock()));
      if (exit) {
        await this.finish(claimed, token, 'cancelled', exitReason(exit), undefined, exit);
        return null;
      }
      // From here on the step has effects; an exit that ended the run since the claim stops it here.
      const acting = await this.runs.markActing(workspaceId, id, token);
      if (!acting) return null;
      const outcome = await this.actions.run({ enrollment: acting, step, stepIndex, record, rerun, claimToken: token, now: started });
      const lateMs = Math.max(0, now - (current.dueAt ?? now));
      stepsRun.inc({ type: step.type, status: outcome.status });
      stepLateness.observe({ type: step.type }, lateMs / 1000);
      return await this.advance(claimed, token, {
        order: step.order,
        type: step.type,
        status: outcome.status,
        detail: outcome.detail,
        finishedAt: apiTimestamp(this.clock()),
        lateMs,
      });
    } catch (error) {
      if (error instanceof StepFailure) {
        stepsRun.inc({ type: step.type, status: 'failed' });
        await this.finish(claimed, token, 'failed', `Step ${step.order} (${step.type}) failed: ${error.message}`, {
          order: step.order,
          type: step.type,
          status: 'failed',
          detail: error.message,
          finishedAt: apiTimestamp(this.clock()),
        });
        return null;
      }
      await this.retryLater(claimed, token, step.order, error);
      return null;
    }
  }

  private async advance(enrollment: EnrollmentDocument, token: string, result: StepResult): Promise<number | null> {
    const next = enrollment.stepIndex + 1;
    const stepResults = [...enrollment.stepResults, result];
    if (next >= enrollment.steps.length) {
      await this.finish(enrollment, token, 'completed', null, result);
      return null;
    }
    const now = this.clock().getTime();
    const dueAt = dueAtOnReaching(enrollment.steps[next]!, now, this.options.waitScale);
    const moved = await this.endStep(
      enrollment,
      token,
      { set: { stepIndex: next, dueAt, claimUntil: null, claimToken: null, attempts: 0, stepResults }, inc: { completedSteps: 1 } },
      result,
    );
    if (!moved) return null; // cancelled meanwhile (rule deleted, an exit), or the claim was taken over
    if (dueAt <= now) return next;
    await this.dispatch(moved, dueAt);
    return null;
  }

  private async finish(
    enrollment: EnrollmentDocument,
    token: string,
    status: Exclude<LogStatus, 'in_progress'>,
    reason: string | null,
    result?: StepResult,
    exit: RunExit | null = null,
  ): Promise<void> {
    const ended = await this.endStep(
      enrollment,
      token,
      {
        set: {
          ...endedFields(status, reason, exit, this.clock()),
          stepResults: result ? [...enrollment.stepResults, result] : enrollment.stepResults,
          ...(status === 'failed' && this.options.runEvents ? { failureAnnounced: false } : {}),
        },
        inc: { completedSteps: result && result.status !== 'failed' ? 1 : 0 },
      },
      result,
    );
    if (ended?.status === 'failed') await this.options.runEvents?.failed(ended);
  }

  /**
   * Ends the claimed step with `change`, unless an exit was left on the run while the step acted:
   * then the run ends cancelled on that exit, keeping the step's result (it did act).
   */
  private async endStep(
    enrollment: EnrollmentDocument,
    token: string,
    change: RunChange,
    result?: StepResult,
  ): Promise<EnrollmentDocument | null> {
    const { workspaceId, id } = enrollment;
    const ended = await this.runs.endStep(workspaceId, id, token, change);
    if (ended) return ended;
    const current = await this.runs.get(workspaceId, id);
    if (current?.claimToken !== token || !current.exit) return null; // not ours any more
    await this.runs.endOnLeftExit(workspaceId, id, token, {
      set: {
        ...endedFields('cancelled', exitReason(current.exit), current.exit, this.clock()),
        stepResults: result ? [...enrollment.stepResults, result] : enrollment.stepResults,
      },
      inc: { completedSteps: result && result.status !== 'failed' ? 1 : 0 },
    });
    return null;
  }

  private async retryLater(enrollment: EnrollmentDocument, token: string, order: number, error: unknown): Promise<void> {
    const attempts = enrollment.attempts + 1;
    const reason = isDomainError(error) ? error.message : 'Internal error.';
    if (attempts >= this.maxAttempts) {
      this.logger.error({ err: error, executionLogId: enrollment.id, attempts }, 'step failed after retries');
      await this.finish(enrollment, token, 'failed', `Step ${order} failed after ${attempts} attempts: ${reason}`);
      return;
    }
    const dueAt = this.clock().getTime() + retryDelayMs(attempts);
    this.logger.warn({ err: error, executionLogId: enrollment.id, attempts }, 'step hit a transient failure; retrying');
    const released = await this.endStep(enrollment, token, { set: { claimUntil: null, claimToken: null, attempts, dueAt } });
    if (released) await this.dispatch(released, dueAt);
  }

  private dispatch(enrollment: EnrollmentDocument, dueAt: number): Promise<void> {
    return this.dispatcher.dispatch(
      newMessage<StepDuePayload>(
        STEP_DUE_TYPE,
        { workspaceId: enrollment.workspaceId, executionLogId: enrollment.id, stepIndex: enrollment.stepIndex, dueAt },
        { correlationId: enrollment.correlationId },
      ),
    );
  }
}
