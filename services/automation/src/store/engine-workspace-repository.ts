/** Workspaces that have (had) active rules or webhook retries (collections.ts, engineWorkspaces). */
import type { DocumentStore } from '@crm/store';
import { engineWorkspaces } from './collections';

export class EngineWorkspaceRepository {
  constructor(private readonly store: DocumentStore) {}

  /** Idempotent: a registered workspace keeps its first registration time. */
  async register(workspaceId: string, registeredAt: string): Promise<void> {
    await this.store.global().upsert(engineWorkspaces, { id: workspaceId, registeredAt }, {});
  }
}
