/**
 * The workspace's suppression list as the write path sees it: every write of a contact or lead
 * passes the emails it writes through `refuse` (record-writer.ts), and the import's rows through
 * `suppressed`, so no path re-creates an erased person until an admin lifts the email.
 */
import { emailKeyOf, suppressedEmail, suppressionHash } from '../domain/suppression';
import type { SuppressionRepository } from '../store/suppression-repository';

export class SuppressionList {
  private key: Promise<Buffer> | undefined;

  /** `configuredKey`: PRIVACY_HASH_KEY; without it, a key kept in the records store. */
  constructor(
    private readonly repo: SuppressionRepository,
    private readonly configuredKey?: string,
  ) {}

  /** 422 on `email` when any of these emails is suppressed in the workspace. */
  async refuse(workspaceId: string, emails: string[]): Promise<void> {
    if ((await this.suppressed(workspaceId, emails)).size > 0) throw suppressedEmail();
  }

  /** The emails (lower-cased) of these that are suppressed in the workspace. */
  async suppressed(workspaceId: string, emails: string[]): Promise<Set<string>> {
    const keys = [...new Set(emails.filter((e) => typeof e === 'string' && e.trim()).map(emailKeyOf))];
    // Most workspaces have suppressed no one: one read answers them, not a keyed hash of every
    // email (an import's batch hashed each row twice, about 4% of the records service's time).
    if (keys.length === 0 || !(await this.repo.anyListed(workspaceId))) return new Set();
    const hashes = await this.hashes(workspaceId, keys);
    const listed = await this.repo.listed(workspaceId, [...hashes.keys()]);
    return new Set([...hashes].filter(([hash]) => listed.has(hash)).map(([, email]) => email));
  }

  async add(workspaceId: string, email: string, at: string): Promise<void> {
    await this.repo.add(workspaceId, suppressionHash(await this.hashKey(), workspaceId, email), at);
  }

  async lift(workspaceId: string, email: string): Promise<boolean> {
    return this.repo.remove(workspaceId, suppressionHash(await this.hashKey(), workspaceId, email));
  }

  private async hashes(workspaceId: string, emails: string[]): Promise<Map<string, string>> {
    const key = await this.hashKey();
    return new Map(emails.map((email) => [suppressionHash(key, workspaceId, email), email]));
  }

  private hashKey(): Promise<Buffer> {
    if (this.configuredKey) return Promise.resolve(Buffer.from(this.configuredKey, 'utf8'));
    // Cached once read: the stored key never changes (a failed read is tried again next time).
    this.key ??= this.repo.storedKey().catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    return this.key;
  }
}
