/**
 * Answers kept with the version of the data they were read from: an answer is given again while
 * its key's version stands, and read anew once it has moved. The caller reads the version in the
 * same read transaction as the answer, before it (see SqliteStoreAdapter.searchMatches).
 */
export class KeptAnswers<T> {
  private readonly answers = new Map<string, { version: number; answer: T }>();

  /** `capacity`: answers kept at once; the least recently read goes first. */
  constructor(private readonly capacity: number) {}

  get(key: string, version: number, answer: () => T): T {
    const kept = this.peek(key, version);
    if (kept !== undefined) return kept;
    const fresh = answer();
    this.put(key, version, fresh);
    return fresh;
  }

  /** The answer kept under `key` at this version, if there is one. */
  peek(key: string, version: number): T | undefined {
    const kept = this.answers.get(key);
    if (kept?.version !== version) return undefined;
    this.answers.delete(key);
    this.answers.set(key, kept);
    return kept.answer;
  }

  put(key: string, version: number, answer: T): void {
    this.answers.delete(key);
    if (this.answers.size >= this.capacity) this.answers.delete(this.answers.keys().next().value as string);
    this.answers.set(key, { version, answer });
  }
}
