/** A job as the upload endpoint creates it, for unit tests of the import pipeline. */
import { queuedJob as newQueuedJob, type ImportJobDocument } from '../domain/import-job';

export function queuedJob(uid: string, workspaceId: string, fileBytes: number): ImportJobDocument & { workspaceId: string } {
  const job = newQueuedJob(
    {
      id: uid,
      filename: 'people.csv',
      fileId: uid,
      fileBytes,
      encoding: 'utf-8',
      sourceUid: null,
      sourceName: '',
      fieldMappings: {},
      actorId: 'usr_1',
      actorKind: 'user',
    },
    workspaceId,
  );
  return { ...job, createdAt: '2024-01-01T00:00:00Z' };
}
