/**
 * Counts kept past inserts. A count read at a workspace's stamp (sqlite-workspace-counts.ts)
 * stands as it is while the workspace's `version` does. While only inserts moved it (its
 * `changes` and the collection's removed tops stand), the workspace's documents are those counted
 * and those above the table's highest rowid at the count: a count read again after a create adds
 * the matches among the few new rows instead of reading every match of the workspace (a list's
 * count right after a write). Any update or delete in the workspace has it counted anew.
 */

import { KeptAnswers } from './kept-answers';

/** What a count was read at: the workspace's `version` and `changes`, the collection's removed tops and highest rowid. */
export interface CountStamp {
  version: number;
  changes: number;
  removedTops: number;
  lastRowid: number;
}

export class KeptCounts {
  /** Kept under their workspace's `changes`: an update or delete there has every count read anew. */
  private readonly counts: KeptAnswers<{ stamp: CountStamp; n: number }>;

  /** `capacity`: counts kept at once; the least recently read goes first. */
  constructor(capacity: number) {
    this.counts = new KeptAnswers(capacity);
  }

  /**
   * The count under `key` at this stamp, when it is kept or can be carried over: `since(rowid)`
   * counts the matches above that rowid, or is undefined when that would read too much.
   */
  peek(key: string, stamp: CountStamp, since: (lastRowid: number) => number | undefined): number | undefined {
    const kept = this.counts.peek(key, stamp.changes);
    if (!kept) return undefined;
    let n = kept.n;
    if (kept.stamp.version !== stamp.version) {
      if (kept.stamp.removedTops !== stamp.removedTops) return undefined;
      const added = since(kept.stamp.lastRowid);
      if (added === undefined) return undefined;
      n += added;
    }
    // Kept at this stamp, also when only the mark moved (other workspaces' inserts): the next
    // insert here is then counted from the newest mark, among the fewest rows.
    this.put(key, stamp, n);
    return n;
  }

  get(key: string, stamp: CountStamp, since: (lastRowid: number) => number | undefined, count: () => number): number {
    const known = this.peek(key, stamp, since);
    if (known !== undefined) return known;
    const n = count();
    this.put(key, stamp, n);
    return n;
  }

  put(key: string, stamp: CountStamp, n: number): void {
    this.counts.put(key, stamp.changes, { stamp, n });
  }
}
