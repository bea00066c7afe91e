/** One page of any list: every list answers `nextCursor`; `count` only on a first page. */
export interface Page<T> {
  results: T[];
  nextCursor: string | null;
  count?: number;
}

/**
 * A list walked by cursor, page by page, only as far as it is read:
 * `for await (const contact of crm.contacts.list({ stage: 'customer' }))`. Each page after the first
 * sends the previous page's `nextCursor` with the same filters, so records added or removed during
 * the walk make none appear twice or go missing.
 */
export class CursorList<T> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>) {}

  /** The pages, for callers that work a page at a time (or checkpoint `nextCursor`). */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.fetchPage(cursor);
      yield page;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.results;
  }

  /** Every item, read to the end. */
  async toArray(): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
