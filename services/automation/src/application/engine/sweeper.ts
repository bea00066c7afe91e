/**
 * The safety net under the bus: the store records each enrollment's next step and when it is due,
 * and the sweeper re-publishes every step that is overdue (by more than a grace period) and not
 * claimed, so a lost message, a broker restart or a worker crash delays a step by at most about a
 * sweep interval. Re-publishing is harmless: the runner claims before it runs.
 *
 * Runs in the workers; a lease in the store lets one worker at a time sweep, and another take over
 * within a few intervals when it stops. A pass visits only the workspaces with overdue work, found
 * on indexes across workspaces, so an idle install of many workspaces costs three index reads.
 */
import { newMessage } from '@crm/bus';
import type { Logger } from '@crm/observability';
import { LeasedSweep, type SweepLease } from '@crm/store';
import type { AutomationRepositories } from '../../store/repositories';
import { STEP_DUE_TYPE, type StepDuePayload } from './messages';
import type { RunEvents } from './run-events';
import type { StepDispatcher } from './step-dispatcher';
import type { WebhookRetryRecovery } from './webhook-retry-recovery';
import { systemClock, type Clock } from '@crm/vocabulary';

export interface SweeperOptions {
  /** Announces failed runs a crash left unannounced (outbound webhooks); none in most unit tests. */
  runEvents?: RunEvents;
  /** Publishes again webhook retries the bus lost; none in most unit tests. */
  webhookRetries?: WebhookRetryRecovery;
  intervalMs: number;
  /** How overdue a step must be before the sweeper re-publishes it (its own message is probably just late). */
  graceMs: number;
  /** Steps re-published per workspace per sweep. */
  batchSize?: number;
}

export class Sweeper extends LeasedSweep<number> {
  private readonly lease: SweepLease;

  constructor(
    private readonly repositories: Pick<AutomationRepositories, 'runs' | 'leases'>,
    private readonly dispatcher: StepDispatcher,
    private readonly logger: Logger,
    private readonly options: SweeperOptions,
    private readonly clock: Clock = systemClock,
  ) {
    const lease = repositories.leases.stepSweeper(options.intervalMs * 3);
    super({ lease, logger, intervalMs: options.intervalMs }, 'automation', () => 0);
    this.lease = lease;
  }

  /** Takes or renews the lease; true when this worker may sweep now. */
  acquireLease(now = this.clock().getTime()): Promise<boolean> {
    return this.lease.acquire(now);
  }

  /**
   * The workspaces with something to do (an overdue step, an unannounced failure, a webhook retry
   * the bus lost), found on indexes across workspaces: a pass costs what is pending, not what is
   * registered. A workspace with more than a batch is visited again next pass.
   */
  private async workspacesWithWork(now: number): Promise<{ id: string }[]> {
    const limit = this.options.batchSize ?? 500;
    const steps = await this.repositories.runs.overdueStepsAcrossWorkspaces(now, now - this.options.graceMs, limit);
    const found = [
      ...steps.map((enrollment) => enrollment.workspaceId),
      ...((await this.options.runEvents?.workspacesUnannounced(limit)) ?? []),
      ...((await this.options.webhookRetries?.workspacesDue(now, limit)) ?? []),
    ];
    return [...new Set(found)].map((id) => ({ id }));
  }

  /** One pass; returns how many steps, run announcements and webhook retries it re-published. */
  protected async pass(now: number): Promise<number> {
    let published = 0;
    for (const workspace of await this.workspacesWithWork(now)) {
      if (this.isStopped()) break;
      const overdue = await this.repositories.runs.overdueSteps(
        workspace.id,
        now,
        now - this.options.graceMs,
        this.options.batchSize ?? 500,
      );
      for (const enrollment of overdue) {
        await this.dispatcher.dispatch(
          newMessage<StepDuePayload>(
            STEP_DUE_TYPE,
            {
              workspaceId: enrollment.workspaceId,
              executionLogId: enrollment.id,
              stepIndex: enrollment.stepIndex,
              dueAt: enrollment.dueAt ?? now,
            },
            { correlationId: enrollment.correlationId },
          ),
        );
        published += 1;
      }
      const { runEvents } = this.options;
      // A run whose failure was written but not announced (a worker stopped between the two).
      if (runEvents)
        for (const run of await runEvents.unannounced(workspace.id, this.options.batchSize ?? 500)) {
          if (run.completedAt && Date.parse(run.completedAt) > now - this.options.graceMs) continue;
          await runEvents.failed(run);
          published += 1;
        }
      const { webhookRetries } = this.options;
      if (webhookRetries) published += await webhookRetries.recover(workspace.id, now, this.options.batchSize ?? 500);
    }
    if (published > 0) this.logger.info({ published }, 're-published overdue automation steps, run announcements and webhook retries');
    return published;
  }
}
