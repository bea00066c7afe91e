/**
 * The store is the source of truth for unfinished jobs; the bus only carries the work. The sweeper
 * looks at every unfinished job now and then, and when nothing has moved for `stallMs` (a split
 * message lost with a restart, a chunk lost or dead-lettered) it asks for the job to be split
 * again, which re-publishes exactly the chunks that are not counted yet. A cancelled job is
 * watched until the chunks that were being imported when it was cancelled have been counted.
 */
import { newMessage, type MessageBus } from '@crm/bus';
import type { Logger } from '@crm/observability';
import { isFinished, isTerminal } from '../domain/import-job';
import type { ImportJobRepository } from '../store/import-job-repository';
import type { ChunkImporter } from './chunk-importer';
import { SPLIT_MESSAGE, type SplitPayload } from './import-messages';

export interface JobSweeperDeps {
  repo: ImportJobRepository;
  bus: MessageBus;
  importer: ChunkImporter;
  logger: Logger;
  stallMs: number;
  intervalMs: number;
  now?: () => number;
}

export class JobSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly deps: JobSweeperDeps) {}

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One pass; exposed for tests. Returns the uids of the jobs it re-published. */
  async sweep(): Promise<string[]> {
    const { repo, bus, logger, stallMs } = this.deps;
    const now = (this.deps.now ?? Date.now)();
    const republished: string[] = [];
    for (const marker of await repo.dueMarkers()) {
      if (!(await repo.claimMarker(marker.id, marker.checkAt, now + stallMs))) continue;
      const job = await repo.get(marker.jobWorkspaceId, marker.id);
      if (job?.status === 'cancelled') {
        await repo.tidyCancelled(marker.jobWorkspaceId, job.id);
        continue;
      }
      if (!job || isTerminal(job.status)) {
        // Ended but not yet announced and tidied (a crash between): announce it, and its chunks go with the marker.
        if (job && (job.status === 'complete' || job.status === 'failed')) await this.deps.importer.announceEnd(job);
        else await repo.forget(marker.jobWorkspaceId, marker.id);
        continue;
      }
      if (now - job.lastProgressMs < stallMs) continue;
      if (isFinished(job)) {
        // Every chunk counted but the job not closed: a crash between the two writes.
        await this.deps.importer.finishIfDone(marker.jobWorkspaceId, job.id);
        continue;
      }
      logger.warn(
        { jobUid: job.id, workspaceId: marker.jobWorkspaceId, status: job.status, idleMs: now - job.lastProgressMs },
        'import job stalled; re-publishing its missing work',
      );
      await repo.touch(marker.jobWorkspaceId, job.id);
      const payload: SplitPayload = { jobUid: job.id, workspaceId: marker.jobWorkspaceId };
      await bus.publish(newMessage(SPLIT_MESSAGE, payload, { correlationId: job.id }));
      republished.push(job.id);
    }
    return republished;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sweep()
        .then(
          () => undefined,
          (err: unknown) => this.deps.logger.warn({ err }, 'import sweep failed; trying again later'),
        )
        .finally(() => this.schedule(this.deps.intervalMs));
    }, delayMs);
    this.timer.unref();
  }
}
