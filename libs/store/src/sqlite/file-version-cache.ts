/**
 * Answers a connection keeps while the file is unchanged. The file's version is the connection's
 * `PRAGMA data_version` (which moves when another connection commits) with its `total_changes()`
 * (which moves with this connection's own writes), so any write to any table, by any process,
 * drops every answer: simple, and a file being written to is read anew.
 */
import type Database from 'better-sqlite3';

const VERSION_SQL = `SELECT (SELECT data_version FROM pragma_data_version) || ':' || total_changes()`;

export class FileVersionCache<T> {
  private version = '';
  private readonly answers = new Map<string, T>();

  /** `capacity`: answers kept at once; the oldest goes first. */
  constructor(
    private readonly statement: (sql: string) => Database.Statement<any[]>,
    private readonly capacity: number,
  ) {}

  /**
   * Drops the answers when the file has changed since they were kept. Must be the first read of a
   * read transaction: reading the version starts the transaction's snapshot, so what is kept in
   * the transaction is of the version it is kept under.
   */
  refresh(): void {
    const version = this.statement(VERSION_SQL).pluck(true).get() as string;
    if (version === this.version) return;
    this.answers.clear();
    this.version = version;
  }

  /** The answer kept for `key`, or `answer()`, kept for next time. */
  get(key: string, answer: () => T): T {
    const kept = this.answers.get(key);
    if (kept !== undefined) return kept;
    const answered = answer();
    if (this.answers.size >= this.capacity) this.answers.delete(this.answers.keys().next().value as string);
    this.answers.set(key, answered);
    return answered;
  }
}
