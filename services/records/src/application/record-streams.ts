/**
 * The read behind exports: every record of a kind's list that a query matches (filter, search,
 * ordering as POST /api/{kind}/query/), from one snapshot of the store taken at the start, walked
 * page by page by cursor. The snapshot makes each record come exactly once and the count agree
 * with the records, whatever is written meanwhile; the cursor keeps each page an index walk.
 */
import * as lists from '../domain/list-rules';
import { parseFilterJson, parseOrdering } from '../domain/record-filter';
import { fieldResolver } from './record-field-resolver';
import type { RecordType } from '../domain/model';
import { RecordsRepository } from '../store/records-repository';
import type { RecordQueries, RecordViewsByType } from './record-queries';
import { searchFor, type RecordsContext } from './records-context';
import type { Caller } from './views';

export interface RecordStreamQuery {
  filter?: string;
  search?: string;
  ordering?: string;
  /** Records per part; default 500. */
  batchSize?: number;
}

/** First the count, then the records in batches. */
export type RecordStreamPart<T extends RecordType> = { total: number } | { items: RecordViewsByType[T][] };

const DEFAULT_BATCH = 500;
const MAX_BATCH = 2000;

export class RecordStreams {
  constructor(
    private readonly context: RecordsContext,
    private readonly queries: RecordQueries,
  ) {}

  /** Refuses a bad query (INVALID_ARGUMENT) before the first part; the snapshot ends with the walk. */
  async *stream<T extends RecordType>(caller: Caller, type: T, input: RecordStreamQuery): AsyncGenerator<RecordStreamPart<T>> {
    const fields = await fieldResolver(this.context, caller.workspaceId, type);
    const filter = parseFilterJson(input.filter, fields);
    const orderingKeys = parseOrdering(input.ordering, fields);
    const search = searchFor(input.search);
    const limit = Math.min(Math.max(input.batchSize || DEFAULT_BATCH, 1), MAX_BATCH);
    const snapshot = await this.context.repo.store.openSnapshot();
    try {
      const repo = new RecordsRepository(snapshot);
      let cursor: string | undefined;
      let first = true;
      do {
        const page = await repo.listRecords(
          caller.workspaceId,
          type,
          {},
          {
            filter,
            search,
            ordering: lists.ordering(type, undefined),
            orderingKeys,
            page: { offset: 0, limit },
            cursor,
          },
        );
        if (first) yield { total: page.total ?? 0 };
        first = false;
        if (page.items.length > 0) yield { items: await this.queries.views(caller.workspaceId, type, page.items) };
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    } finally {
      await snapshot.close();
    }
  }
}
