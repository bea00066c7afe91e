/** The change feed's reads: its entries from a position on, and the install's cursor key. */
import type { DocumentStore } from '@crm/store';
import { randomBytes } from 'node:crypto';
import { feedEvents, feedKeys, type FeedEventDocument } from './change-feed-collections';

const CURSOR_KEY_ID = 'cursor';

export class ChangeFeedRepository {
  private key: Promise<string> | undefined;

  constructor(private readonly store: DocumentStore) {}

  /** At most `limit` entries after position `seq`, in order; only of `types` when given. */
  entriesAfter(workspaceId: string, seq: number, types: string[] | null, limit: number): Promise<FeedEventDocument[]> {
    return this.store.forWorkspace(workspaceId).find(feedEvents, {
      where: [{ field: 'seq', op: 'gt', value: seq }, ...(types ? [{ field: 'type', op: 'in' as const, values: types }] : [])],
      sort: [{ field: 'seq', direction: 'asc' }],
      limit,
    });
  }

  /** The install's cursor key: the first replica to need one makes it (an upsert keeps whichever came first). */
  cursorKey(): Promise<string> {
    this.key ??= this.store
      .global()
      .upsert(feedKeys, { id: CURSOR_KEY_ID, secret: randomBytes(32).toString('hex') }, {})
      .then((document) => document.secret)
      .catch((error: unknown) => {
        this.key = undefined;
        throw error;
      });
    return this.key;
  }
}
