/** Reads and writes of exports and their file chunks; application code never names a collection. */
import type { DocumentStore, ScopedStore } from '@crm/store';
import type { ExportJobDocument } from '../domain/export-job';
import { chunkId, exportChunks, exportJobs } from './export-collections';

export class ExportJobRepository {
  constructor(private readonly store: DocumentStore) {}

  private ws(workspaceId: string): ScopedStore {
    return this.store.forWorkspace(workspaceId);
  }

  async insert(job: ExportJobDocument & { workspaceId: string }): Promise<void> {
    await this.ws(job.workspaceId).insert(exportJobs, job);
  }

  get(workspaceId: string, id: string): Promise<ExportJobDocument | null> {
    if (!id.startsWith('exp_')) return Promise.resolve(null);
    return this.ws(workspaceId).get(exportJobs, id);
  }

  /** Newest first. */
  list(workspaceId: string, offset: number, limit: number): Promise<{ total: number; items: ExportJobDocument[] }> {
    return this.ws(workspaceId).findPage(exportJobs, { sort: [{ field: 'createdAt', direction: 'desc' }], offset, limit });
  }

  /** Starts a run of a job not ended yet (another when a message comes again): null when ended or gone. */
  startRun(workspaceId: string, id: string, now: string): Promise<ExportJobDocument | null> {
    return this.ws(workspaceId).update(
      exportJobs,
      id,
      { set: { status: 'processing', startedAt: now, rowCount: 0, rowsWritten: 0, chunkCount: 0 }, inc: { run: 1 } },
      { where: [{ field: 'status', op: 'in', values: ['queued', 'processing'] }] },
    );
  }

  /** The chunks of earlier runs (a run cut short by a crash). */
  async dropEarlierRuns(workspaceId: string, id: string, run: number): Promise<void> {
    await this.ws(workspaceId).deleteMany(exportChunks, [
      { field: 'exportId', op: 'eq', value: id },
      { field: 'run', op: 'lt', value: run },
    ]);
  }

  /** Progress of the current run; nothing when another run has taken over. */
  async progress(workspaceId: string, id: string, run: number, set: Partial<Pick<ExportJobDocument, 'rowCount' | 'rowsWritten'>>) {
    await this.ws(workspaceId).update(exportJobs, id, { set }, { where: [{ field: 'run', op: 'eq', value: run }] });
  }

  async writeChunk(workspaceId: string, id: string, run: number, index: number, data: string): Promise<void> {
    await this.ws(workspaceId).insert(exportChunks, { id: chunkId(id, run, index), exportId: id, run, index, data });
  }

  async complete(workspaceId: string, id: string, run: number, done: { rowsWritten: number; chunkCount: number; finishedAt: string }) {
    await this.ws(workspaceId).update(
      exportJobs,
      id,
      { set: { status: 'complete', ...done } },
      { where: [{ field: 'run', op: 'eq', value: run }] },
    );
  }

  async fail(workspaceId: string, id: string, errorMessage: string, finishedAt: string): Promise<void> {
    await this.ws(workspaceId).update(exportJobs, id, { set: { status: 'failed', errorMessage, finishedAt } });
    await this.ws(workspaceId).deleteMany(exportChunks, [{ field: 'exportId', op: 'eq', value: id }]);
  }

  async chunk(workspaceId: string, id: string, run: number, index: number): Promise<string | null> {
    return (await this.ws(workspaceId).get(exportChunks, chunkId(id, run, index)))?.data ?? null;
  }

  /** Exports made before `before`, in every workspace, oldest first. */
  async createdBefore(before: string, limit: number): Promise<(ExportJobDocument & { workspaceId: string })[]> {
    const jobs = await this.store.findAcrossWorkspaces(exportJobs, {
      where: [{ field: 'createdAt', op: 'lt', value: before }],
      sort: [{ field: 'createdAt', direction: 'asc' }],
      limit,
    });
    return jobs.filter((job): job is ExportJobDocument & { workspaceId: string } => typeof job.workspaceId === 'string');
  }

  /** The file first, then the job, so a pass cut short finds the job again. */
  async erase(workspaceId: string, id: string): Promise<void> {
    await this.ws(workspaceId).deleteMany(exportChunks, [{ field: 'exportId', op: 'eq', value: id }]);
    await this.ws(workspaceId).delete(exportJobs, id);
  }
}
