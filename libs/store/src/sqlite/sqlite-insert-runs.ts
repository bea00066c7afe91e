/**
 * A commit's consecutive inserts into one collection go to SQLite as multi-row INSERTs. Each
 * statement opens a cursor on the table, on every index (a contact has twelve) and on what its
 * triggers write (the text index, the workspace counts) before its first row: for one row, that
 * set-up is most of the insert. Measured on a 100,000-contact import, 500-row commits: one
 * statement per row about 9,000 rows/s, one per 64 rows about 2.5 times that.
 *
 * Only consecutive inserts are joined, so the writes still happen in the commit's order, and a
 * duplicate still fails the whole commit (the statement names the index, as a one-row one does).
 */
import type { StoredRecord } from '../store-adapter';

/** Rows per statement, largest first; a run is cut into these so few statement texts exist. */
export const INSERT_ROWS_PER_STATEMENT = [64, 8, 1] as const;

/** One write of a commit, or a run of at least two consecutive inserts into the same collection. */
export type CommitStep<W, C> = { write: W; collection: C } | { collection: C; documents: StoredRecord[] };

/** Groups consecutive inserts into the same collection; every other write stays a step of its own. */
export function insertRuns<W extends { kind: string }, C>(resolved: { write: W; collection: C }[]): CommitStep<W, C>[] {
  const steps: CommitStep<W, C>[] = [];
  let i = 0;
  while (i < resolved.length) {
    const { write, collection } = resolved[i]!;
    let end = i + 1;
    if (write.kind === 'insert') {
      while (end < resolved.length && resolved[end]!.write.kind === 'insert' && resolved[end]!.collection === collection) end++;
    }
    if (end - i >= 2) {
      const documents = resolved.slice(i, end).map((step) => (step.write as unknown as { document: StoredRecord }).document);
      steps.push({ collection, documents });
    } else {
      steps.push({ write, collection });
    }
    i = end;
  }
  return steps;
}

/** The `VALUES` list of an insert of `rows` rows of (id, workspace_id, doc). */
export function insertValues(rows: number): string {
  return Array.from({ length: rows }, () => '(?, ?, ?)').join(', ');
}
