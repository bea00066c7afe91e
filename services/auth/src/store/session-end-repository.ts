import type { DocumentStore } from '@crm/store';
import type { SessionEnd } from '../domain/model';
import type { SessionEndRepository } from '../domain/repositories';
import { sessionEnds } from './collections';

export class StoreSessionEndRepository implements SessionEndRepository {
  constructor(private readonly store: DocumentStore) {}

  async generation(workspaceId: string, userId: string): Promise<number> {
    return (await this.store.forWorkspace(workspaceId).get(sessionEnds, userId))?.generation ?? 0;
  }

  async end(workspaceId: string, userId: string, endedAt: string): Promise<number> {
    const ended = await this.store
      .forWorkspace(workspaceId)
      .upsert(sessionEnds, { id: userId, workspaceId, generation: 1, endedAt }, { inc: { generation: 1 }, set: { endedAt } });
    return ended.generation;
  }

  endedSince(workspaceId: string, since: string): Promise<SessionEnd[]> {
    return this.store.forWorkspace(workspaceId).find(sessionEnds, { where: [{ field: 'endedAt', op: 'gt', value: since }] });
  }
}
