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
    const kept = this.answers.get(key);
    this.answers.delete(key);
    const fresh = kept?.version === version ? kept : { version, answer: answer() };
    if (this.answers.size >= this.capacity) this.answers.delete(this.answers.keys().next().value as string);
    this.answers.set(key, fresh);
    return fresh.answer;
  }
}
